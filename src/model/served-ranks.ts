import { EventLoopTurns } from '../event-loop-turns';
import type { RankQuery, Scorer } from './scorer';
import { combinedLogit } from './rules/served-combiner';
import type { ServedCombiner } from './rules/served-combiner';
import type { EvidenceSource } from './rules/rule-walker';

/**
 * One question (entity, relation, direction) whose answers the rules raise: the entities they
 * reach and the question's answers, each scored once for all the queries that ask it.
 */
interface RaisedQuestion {
  /** The entities the rules reach, then the queries' answers no rule reaches. */
  candidates: number[];
  /** How many of `candidates` the rules reach (the first ones). */
  reached: number;
  /** Served logit of each candidate (the model's plus the rules' term). */
  served: Float32Array;
  /** The rules' term of each candidate's served logit. */
  term: Float32Array;
  /** Candidate entity -> its index in `candidates`. */
  at: Map<number, number>;
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
  const raised = new Map<string, RaisedQuestion>();
  const scoring: Promise<void>[] = [];
  const turns = new EventLoopTurns();
  for (const [key, q] of first) {
    const direction = q.direction ?? 'tail';
    const evidence = combiner.evidence(q.entity, q.relation, direction, walked);
    if (evidence) {
      const { setting, found } = evidence;
      const candidates = [...found.keys()];
      const reached = candidates.length;
      for (const answer of answers.get(key) as Set<number>) {
        if (!found.has(answer)) candidates.push(answer);
      }
      scoring.push(
        scorer
          .logitsOfAsync({ entity: q.entity, relation: q.relation, direction }, candidates)
          .then((logits) => {
            const served = new Float32Array(candidates.length);
            const term = new Float32Array(candidates.length);
            candidates.forEach((e, i) => {
              const own = logits[i] as number;
              served[i] = combinedLogit(own, setting, found.get(e));
              term[i] = (served[i] as number) - own;
            });
            const at = new Map(candidates.map((e, i) => [e, i]));
            raised.set(key, { candidates, reached, served, term, at });
          }),
      );
    }
    await turns.maybeTurn();
  }
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
  // The engine leaves out what the rules reach (counted below at their served logits): one
  // list per question and exclusion list, shared by the queries that ask it.
  const lists = new Map<string, Map<unknown, Uint32Array>>();
  const engineExcludes = queries.map((q, i) => {
    const own = excludes[i];
    const question = raised.get(questionKey(q));
    if (!question) return own ?? [];
    const byOwn = lists.get(questionKey(q)) ?? new Map<unknown, Uint32Array>();
    lists.set(questionKey(q), byOwn);
    let list = byOwn.get(own);
    if (!list) {
      const mine = own ?? [];
      list = new Uint32Array(mine.length + question.reached);
      list.set(mine);
      list.set(question.candidates.slice(0, question.reached), mine.length);
      byOwn.set(own, list);
    }
    return list;
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
    const answer = question.at.get(q.tail) as number;
    const h = question.served[answer] as number;
    let above = 0;
    for (let c = 0; c < question.reached; c++) {
      const v = question.served[c] as number;
      if (v < h || c === answer) continue;
      if (skip.has(question.candidates[c] as number)) continue;
      above += v > h ? 1 : 0.5;
    }
    ranks[i] = (ranks[i] as number) + above;
    logits[i] = (logits[i] as number) + (question.term[answer] as number);
    await turns.maybeTurn();
  }
  return { ranks, logits };
}
