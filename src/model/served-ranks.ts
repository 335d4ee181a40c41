import type { RankQuery, Scorer } from './scorer';
import { combinedLogit } from './rules/served-combiner';
import type { ServedCombiner } from './rules/served-combiner';
import type { EvidenceSource } from './rules/rule-walker';

/** What the rules change about one question's answer (`tail`) and its rank. */
interface RuleTerms {
  /** The answer's served logit: the engine ranks it there among the entities no rule reaches. */
  ranked: number;
  /** Entities the rules reach (not excluded, not the answer): left to this count, not the engine. */
  reached: number[];
  /** Of those, how many have a served logit above the answer's (ties count half). */
  reachedAbove: number;
  /** The rules' term of the answer's served logit. */
  term: number;
}

async function ruleTerms(
  scorer: Scorer,
  combiner: ServedCombiner,
  q: RankQuery,
  excluded: ArrayLike<number>,
  walked: EvidenceSource | undefined,
): Promise<RuleTerms | undefined> {
  const direction = q.direction ?? 'tail';
  const evidence = combiner.evidence(q.entity, q.relation, direction, walked);
  if (!evidence) return undefined;
  const { setting, found } = evidence;
  const skip = new Set(Array.from(excluded));
  const reached = [...found.keys()].filter((e) => e !== q.tail && !skip.has(e));
  const logits = await scorer.logitsOfAsync({ entity: q.entity, relation: q.relation, direction }, [
    q.tail,
    ...reached,
  ]);
  const own = logits[0] as number;
  const ranked = combinedLogit(own, setting, found.get(q.tail));
  let reachedAbove = 0;
  reached.forEach((e, i) => {
    const v = combinedLogit(logits[i + 1] as number, setting, found.get(e));
    reachedAbove += v > ranked ? 1 : v === ranked ? 0.5 : 0;
  });
  return { ranked, reached, reachedAbove, term: ranked - own };
}

/**
 * `Scorer.filteredRanksAsync` by the served logits: each answer's logit is the model's plus the
 * rules' evidence where `combiner` adds it, and its rank counts every entity at its served
 * logit (the ones the rules reach scored here, the others by the engine at the answer's served
 * logit: the rules only raise logits). Without a combiner, the model's ranks and logits.
 * `walked`: where the questions' walks come from (default: walked here, on the event loop).
 */
export async function servedRanks(
  scorer: Scorer,
  combiner: ServedCombiner | undefined,
  queries: RankQuery[],
  excludes: (Uint32Array | number[] | undefined)[] = [],
  walked?: EvidenceSource,
): Promise<{ ranks: Float64Array; logits: Float32Array }> {
  if (!combiner) return scorer.filteredRanksAsync(queries, excludes);
  const terms = await Promise.all(
    queries.map((q, i) => ruleTerms(scorer, combiner, q, excludes[i] ?? [], walked)),
  );
  const { ranks, logits } = await scorer.filteredRanksAsync(
    queries,
    queries.map((_, i) => {
      const reached = terms[i]?.reached;
      const own = excludes[i] ?? [];
      return reached ? [...Array.from(own), ...reached] : own;
    }),
    Float32Array.from(terms, (t) => t?.ranked ?? -Infinity),
  );
  terms.forEach((t, i) => {
    if (!t) return;
    ranks[i] = (ranks[i] as number) + t.reachedAbove;
    logits[i] = (logits[i] as number) + t.term;
  });
  return { ranks, logits };
}
