import type { Direction } from '../direction';
import type { ScoredEntity, ServingModel } from '../model';
import { combinedLogit, ruleTermAt } from '../model/rules/served-combiner';
import type { CombinerEvidence } from '../model/rules/served-combiner';

/** One answered query in the model's ids, with what its answer may never hold. */
export interface RankedQuery {
  entity: number;
  relation: number;
  direction: Direction;
  /** Whether the answer keeps to the relation's range / domain (the query's `typed`). */
  typed: boolean;
  excluded: readonly number[];
}

/**
 * The best `k` by the served logit (the model's plus the rules' evidence, served-combiner.ts)
 * from `top`, the model's best k for the query (excluded entities already out). Exact over
 * every entity: the rules only raise logits, so an entity outside `top` that no rule reaches
 * scores at most the k-th of `top`; the reached ones are scored, those that could still enter
 * the answer only. `evidence`: the query's rule evidence (`walkQueries`); without any, `top` as
 * it is.
 */
export async function rankWithRules(
  model: ServingModel,
  query: RankedQuery,
  top: ScoredEntity[],
  k: number,
  evidence: CombinerEvidence | undefined,
): Promise<ScoredEntity[]> {
  if (!evidence) return top;
  const { setting, found } = evidence;
  const combine = (row: ScoredEntity): ScoredEntity => {
    const logit = combinedLogit(row.logit, setting, found.get(row.index));
    return { ...row, logit, probability: 1 / (1 + Math.exp(-logit)) };
  };
  const kept = top.slice(0, k);
  const served = kept.map(combine);
  // An entity outside the model's top k has a logit at most the k-th's (all of them, when the
  // list is shorter than k: then every entity is in it).
  const floor = kept.length < k ? -Infinity : (kept[kept.length - 1]?.logit ?? -Infinity);
  const threshold = Math.min(...served.map((row) => row.logit));
  const inTop = new Set(kept.map((row) => row.index));
  const excluded = new Set(query.excluded);
  const { types } = model;
  const outside: number[] = [];
  for (let i = 0; i < found.size; i++) {
    // Only a candidate the rules raise past the threshold can enter the answer.
    if (floor + ruleTermAt(setting, found, i) < threshold) continue;
    const index = found.candidate(i);
    if (inTop.has(index) || excluded.has(index)) continue;
    if (query.typed && types && !types.isConsistent(query.relation, query.direction, index)) {
      continue;
    }
    outside.push(index);
  }
  if (outside.length > 0) {
    const { scorer } = model;
    const logits = await scorer.logitsOfAsync(
      { entity: query.entity, relation: query.relation, direction: query.direction },
      outside,
    );
    outside.forEach((index, i) => {
      const row = { index, id: scorer.entities[index] as string, logit: logits[i] as number };
      served.push(combine({ ...row, probability: 0 }));
    });
  }
  // Best first; ties keep the lower entity index, as the engine orders them.
  served.sort((a, b) => b.logit - a.logit || a.index - b.index);
  return served.slice(0, k);
}

/**
 * The rule evidence of each query, walked on the engine's worker threads (none without an
 * active combiner): a request's walks stay off the event loop, beside its scoring.
 */
export async function walkQueries(
  model: ServingModel,
  queries: readonly Pick<RankedQuery, 'entity' | 'relation' | 'direction'>[],
): Promise<(CombinerEvidence | undefined)[]> {
  if (!model.combiner) return queries.map(() => undefined);
  return model.combiner.evidenceBatch(queries);
}
