import type { Direction } from '../direction';
import type { ServingModel } from './serving-model';

/**
 * The probability the API reports for a logit of `relation` (a base relation index) asked in
 * `direction`. Every place that turns a served logit into a probability goes through here.
 */
export function servingProbability(
  _model: ServingModel,
  _relation: number,
  _direction: Direction,
  logit: number,
): number {
  return 1 / (1 + Math.exp(-logit));
}
