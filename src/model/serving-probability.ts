import type { Direction } from '../direction';
import { servedEdgeProbability, servedProbability } from './calibration';
import type { ServingModel } from './serving-model';

/**
 * The probability the API reports for a logit of `relation` (a base relation index) asked in
 * `direction`: the version's calibrated probability that the edge is true, or the sigmoid of the
 * logit for a version without calibration.json. Every place that turns a served logit into a
 * probability goes through here.
 */
export function servingProbability(
  model: ServingModel,
  relation: number,
  direction: Direction,
  logit: number,
): number {
  return model.calibration
    ? servedProbability(model.calibration, relation, direction, logit)
    : 1 / (1 + Math.exp(-logit));
}

/**
 * The probability that the edge (head, relation, tail) is true, from the logits of both of its
 * questions: (head, relation, ?) scoring tail, and (tail, relation⁻¹, ?) scoring head. A version
 * calibrated before edges were answers with the tail question's probability; one without
 * calibration with the sigmoid of the tail logit.
 */
export function servingEdgeProbability(
  model: ServingModel,
  relation: number,
  tailLogit: number,
  headLogit: number,
): number {
  return model.calibration
    ? servedEdgeProbability(model.calibration, relation, tailLogit, headLogit)
    : 1 / (1 + Math.exp(-tailLogit));
}
