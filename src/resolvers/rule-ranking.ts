import type { Direction } from '../direction';
import type { ScoredEntity, ServingModel } from '../model';
import { combinedLogit } from '../model/rules/served-combiner';

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
 * the answer only. Without an active combiner for the query, `top` as it is.
 */
export async function rankWithRules(
  model: ServingModel,
  query: RankedQuery,
  top: ScoredEntity[],
  k: number,
): Promise<ScoredEntity[]> {
  const evidence = model.combiner?.evidence(query.entity, query.relation, query.direction);
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
  for (const [index, ev] of found) {
    if (inTop.has(index) || excluded.has(index)) continue;
    if (query.typed && types && !types.isConsistent(query.relation, query.direction, index)) {
      continue;
    }
    if (floor + setting.w * ev[setting.aggregate] >= threshold) outside.push(index);
  }
  if (outside.length > 0) {
    const { scorer } = model;
    const vectors = scorer.entityVectors(outside);
    const width = vectors[0]?.length ?? 0;
    const rows = new Float32Array(outside.length * width);
    vectors.forEach((v, i) => rows.set(v, i * width));
    const logits = await scorer.logitsAgainstAsync(
      [{ entity: query.entity, relation: query.relation, direction: query.direction }],
      rows,
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

/** What the rules change about one edge's tail question (answerEdgeProbabilities). */
export interface EdgeRuleTerms {
  /** The tail's served logit: the engine ranks the tail at it among the unreached entities. */
  ranked: number;
  /** Reached entities the engine leaves out (counted here instead). */
  reached: number[];
  /** Reached entities (not left out, not the tail) whose served logit beats the tail's, ties half. */
  reachedAbove: number;
  /** The rules' term of the tail's served logit. */
  tailTerm: number;
}

/**
 * The rules' part of ranking `tail` for (head, relation, ?) as missingLinks ranks it: the tail
 * at its served logit, the entities the rules reach at theirs (scored here), the others at
 * the model's logit (by the engine, at the tail's served logit). Undefined without an active
 * combiner for the question: the model's rank stands.
 */
export async function edgeRuleTerms(
  model: ServingModel,
  edge: { entity: number; relation: number; tail: number },
  excluded: readonly number[],
): Promise<EdgeRuleTerms | undefined> {
  const evidence = model.combiner?.evidence(edge.entity, edge.relation, 'tail');
  if (!evidence) return undefined;
  const { setting, found } = evidence;
  const skip = new Set(excluded);
  const reached = [...found.keys()].filter((e) => e !== edge.tail && !skip.has(e));
  const ids = [edge.tail, ...reached];
  const vectors = model.scorer.entityVectors(ids);
  const width = vectors[0]?.length ?? 0;
  const rows = new Float32Array(ids.length * width);
  vectors.forEach((v, i) => rows.set(v, i * width));
  const logits = await model.scorer.logitsAgainstAsync(
    [{ entity: edge.entity, relation: edge.relation, direction: 'tail' }],
    rows,
  );
  const own = logits[0] as number;
  const ranked = combinedLogit(own, setting, found.get(edge.tail));
  let reachedAbove = 0;
  reached.forEach((e, i) => {
    const v = combinedLogit(logits[i + 1] as number, setting, found.get(e));
    reachedAbove += v > ranked ? 1 : v === ranked ? 0.5 : 0;
  });
  return { ranked, reached, reachedAbove, tailTerm: ranked - own };
}

/** The rules' term of the head question's served logit: (tail, relation⁻¹, ?) scoring head. */
export function headRuleTerm(
  model: ServingModel,
  edge: { entity: number; relation: number; tail: number },
): number {
  const evidence = model.combiner?.evidence(edge.tail, edge.relation, 'head');
  if (!evidence) return 0;
  return combinedLogit(0, evidence.setting, evidence.found.get(edge.entity));
}
