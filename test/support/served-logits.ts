import type { Direction } from '../../src/direction';
import type { ServingModel } from '../../src/model';

/**
 * Every entity's served logit for the question from `entity` (the model's plus the rules' term
 * its combiner adds), by brute force: one scoreTriples call over every entity.
 */
export function servedLogits(
  model: ServingModel,
  entity: number,
  relation: number,
  direction: Direction = 'tail',
): Float64Array {
  const n = model.scorer.entities.length;
  const all = Uint32Array.from({ length: n }, (_, i) => i);
  const fixed = new Uint32Array(n).fill(entity);
  const relations = new Uint32Array(n).fill(relation);
  const logits =
    direction === 'tail'
      ? model.scorer.scoreTriples(fixed, relations, all, 'tail')
      : model.scorer.scoreTriples(all, relations, fixed, 'head');
  const evidence = model.combiner?.evidence(entity, relation, direction);
  return Float64Array.from(logits, (z, e) => {
    const ev = evidence?.found.get(e);
    return ev && evidence ? z + evidence.setting.w * ev[evidence.setting.aggregate] : z;
  });
}
