import type { Direction } from '../direction';
import { edgeFeatures, servedEdgeProbability, servedProbability } from './calibration';
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

/** An edge in the model's ids (base relation) with the logits of both of its questions. */
export interface ScoredEdge {
  head: number;
  relation: number;
  tail: number;
  /** (head, relation, ?) scoring tail. */
  tailLogit: number;
  /** (tail, relation⁻¹, ?) scoring head. */
  headLogit: number;
  /** The best confidence of the version's rules reaching each end (edgeRuleEvidence); 0: none. */
  rules?: { tail: number; head: number };
}

/**
 * The probability that the edge is true, through the version's edge calibrators: both logits,
 * how often its ends play their roles in the version's graph (graph.bin) and the rules that reach
 * each end from the other. A version without
 * edge calibrators or without graph.bin answers with the tail question's probability.
 */
export function servingEdgeProbability(model: ServingModel, edge: ScoredEdge): number {
  const { calibration, graph } = model;
  if (!calibration?.edge || !graph) {
    return servingProbability(model, edge.relation, 'tail', edge.tailLogit);
  }
  const features = edgeFeatures(
    graph,
    edge.head,
    edge.relation,
    edge.tail,
    edge.tailLogit,
    edge.headLogit,
    edge.rules,
  );
  return servedEdgeProbability(calibration, edge.relation, features);
}
