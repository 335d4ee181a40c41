import { EventLoopTurns } from '../event-loop-turns';
import { SortedLogits } from './sorted-logits';
import type { RankQuery, Scorer } from './scorer';
import { ruleTermAt } from './rules/served-combiner';
import type { ServedCombiner } from './rules/served-combiner';
import type { EvidenceSource } from './rules/rule-walker';

/**
 * One question (entity, relation, direction) whose answers the rules raise: the entities they
 * reach and the question's answers, each scored once for all the queries that ask it.
 */
interface RaisedQuestion {
  /** The entities the rules reach, then the queries' answers no rule reaches. */
  candidates: Uint32Array;
  /** How many of `candidates` the rules reach (the first ones). */
  reached: number;
  /** Served logit of each candidate (the model's plus the rules' term). */
  served: Float32Array;
  /** The rules' term of each candidate's served logit. */
  term: Float32Array;
  /** Each answer the queries ask -> its index in `candidates`. */
  at: Map<number, number>;
}

/** The queries asking one raised question with one exclusion list. */
interface ExclusionGroup {
  queries: number;
  /** What the engine leaves out: the exclusion list, then the reached entities. */
  engineList?: Uint32Array;
  /** The served logits of the reached entities outside the list (null: not sortable). */
  sorted?: SortedLogits | null;
}

/** The served logits of the entities the rules reach for `question`, but those in `skip`. */
function reachedOutside(question: RaisedQuestion, skip: Set<number>): SortedLogits | undefined {
  const kept: number[] = [];
  for (let c = 0; c < question.reached; c++) {
    if (!skip.has(question.candidates[c] as number)) kept.push(question.served[c] as number);
  }
  return SortedLogits.of(kept);
}

/**
 * How many entities the rules reach for `question` are above its candidate `answer` at their
 * served logits (ties count half), those in `skip` and the answer itself left out: from
 * `sorted` (`reachedOutside`) when given, else by a scan.
 */
function reachedAbove(
  question: RaisedQuestion,
  answer: number,
  skip: Set<number>,
  sorted: SortedLogits | null,
): number {
  const h = question.served[answer] as number;
  if (sorted && !Number.isNaN(h)) {
    // The answer, when reached and not skipped, is among the sorted as one tie with itself.
    const counted = answer < question.reached && !skip.has(question.candidates[answer] as number);
    return sorted.above(h) - (counted ? 0.5 : 0);
  }
  let above = 0;
  for (let c = 0; c < question.reached; c++) {
    const v = question.served[c] as number;
    if (v < h || c === answer) continue;
    if (skip.has(question.candidates[c] as number)) continue;
    above += v > h ? 1 : 0.5;
  }
  return above;
}

function questionKey(q: RankQuery): string {
  return `${q.entity}\t${q.relation}\t${q.direction ?? 'tail'}`;
}

/**
 * The questions of `queries` the combiner raises, each walked once (through `walked` when
 * given) and its reached entities and answers scored in one engine call.
 */
async function raisedQuestions(
  scorer: Scorer,
  combiner: ServedCombiner,
  queries: RankQuery[],
  walked: EvidenceSource | undefined,
): Promise<Map<string, RaisedQuestion>> {
  const answers = new Map<string, Set<number>>();
  const first = new Map<string, RankQuery>();
  for (const q of queries) {
    const key = questionKey(q);
    if (!first.has(key)) first.set(key, q);
    const set = answers.get(key);
    if (set) set.add(q.tail);
    else answers.set(key, new Set([q.tail]));
  }
  // Each question's evidence is kept as its candidates and their rule terms, not as the walk's
  // map: thousands of maps alive until the chunk is ranked would each survive collection.
  const walks: { key: string; q: RankQuery; candidates: Uint32Array; terms: Float64Array }[] = [];
  const turns = new EventLoopTurns();
  for (const [key, q] of first) {
    const evidence = combiner.evidence(q.entity, q.relation, q.direction ?? 'tail', walked);
    if (evidence) {
      const { setting, found } = evidence;
      const asked = answers.get(key) as Set<number>;
      let unreached = 0;
      for (const answer of asked) if (!found.has(answer)) unreached++;
      const candidates = new Uint32Array(found.size + unreached);
      const terms = new Float64Array(found.size);
      let i = 0;
      for (; i < found.size; i++) {
        candidates[i] = found.candidate(i);
        terms[i] = ruleTermAt(setting, found, i);
      }
      for (const answer of asked) if (!found.has(answer)) candidates[i++] = answer;
      walks.push({ key, q, candidates, terms });
    }
    await turns.maybeTurn();
  }
  const raised = new Map<string, RaisedQuestion>();
  const scoring = walks.map(({ key, q, candidates, terms }) => {
    const direction = q.direction ?? 'tail';
    return scorer
      .logitsOfAsync({ entity: q.entity, relation: q.relation, direction }, candidates)
      .then((logits) => {
        const reached = terms.length;
        const served = new Float32Array(candidates.length);
        const term = new Float32Array(candidates.length);
        for (let c = 0; c < reached; c++) {
          const own = logits[c] as number;
          served[c] = own + (terms[c] as number); // combinedLogit's sum
          term[c] = (served[c] as number) - own;
        }
        served.set(logits.subarray(reached), reached);
        const asked = answers.get(key) as Set<number>;
        const at = new Map<number, number>();
        candidates.forEach((e, c) => {
          if (asked.has(e)) at.set(e, c);
        });
        raised.set(key, { candidates, reached, served, term, at });
      });
  });
  await Promise.all(scoring);
  return raised;
}

/**
 * `Scorer.filteredRanksAsync` by the served logits: each answer's logit is the model's plus the
 * rules' evidence where `combiner` adds it, and its rank counts every entity at its served
 * logit (the ones the rules reach scored here, the others by the engine at the answer's served
 * logit: the rules only raise logits). Without a combiner, the model's ranks and logits.
 * Queries asking the same question share its walk and its one scoring of the reached entities.
 * `walked`: where the questions' walks come from (default: walked here).
 */
export async function servedRanks(
  scorer: Scorer,
  combiner: ServedCombiner | undefined,
  queries: RankQuery[],
  excludes: (Uint32Array | number[] | undefined)[] = [],
  walked?: EvidenceSource,
): Promise<{ ranks: Float64Array; logits: Float32Array }> {
  if (!combiner) return scorer.filteredRanksAsync(queries, excludes);
  const raised = await raisedQuestions(scorer, combiner, queries, walked);
  // Queries that ask one question with one exclusion list (by identity) share its engine list
  // and, asked more than once, its reached entities' logits sorted.
  const groups = new Map<RaisedQuestion, Map<unknown, ExclusionGroup>>();
  const groupOf = (question: RaisedQuestion, own: unknown): ExclusionGroup => {
    const byOwn = groups.get(question) ?? new Map<unknown, ExclusionGroup>();
    groups.set(question, byOwn);
    let group = byOwn.get(own);
    if (!group) {
      group = { queries: 0 };
      byOwn.set(own, group);
    }
    return group;
  };
  // The engine leaves out what the rules reach (counted below at their served logits).
  const engineExcludes = queries.map((q, i) => {
    const own = excludes[i];
    const question = raised.get(questionKey(q));
    if (!question) return own ?? [];
    const group = groupOf(question, own);
    group.queries++;
    if (!group.engineList) {
      const mine = own ?? [];
      group.engineList = new Uint32Array(mine.length + question.reached);
      group.engineList.set(mine);
      group.engineList.set(question.candidates.subarray(0, question.reached), mine.length);
    }
    return group.engineList;
  });
  const ranked = Float32Array.from(queries, (q) => {
    const question = raised.get(questionKey(q));
    return question ? (question.served[question.at.get(q.tail) as number] as number) : -Infinity;
  });
  const { ranks, logits } = await scorer.filteredRanksAsync(queries, engineExcludes, ranked);
  // The reached entities above each raised answer, at their served logits (ties count half).
  const excludedSets = new Map<unknown, Set<number>>();
  const turns = new EventLoopTurns();
  for (const [i, q] of queries.entries()) {
    const question = raised.get(questionKey(q));
    if (!question) continue;
    const own = excludes[i];
    let skip = excludedSets.get(own);
    if (!skip) {
      skip = new Set(Array.from(own ?? []));
      excludedSets.set(own, skip);
    }
    const group = groupOf(question, own);
    if (group.queries > 1 && group.sorted === undefined) {
      group.sorted = reachedOutside(question, skip) ?? null;
    }
    const answer = question.at.get(q.tail) as number;
    ranks[i] = (ranks[i] as number) + reachedAbove(question, answer, skip, group.sorted ?? null);
    logits[i] = (logits[i] as number) + (question.term[answer] as number);
    await turns.maybeTurn();
  }
  return { ranks, logits };
}
