import type { Direction } from '../../direction';
import { applyCalibrator, applyShrunk } from './calibrator';
import type { Calibrator, ShrunkCalibrator } from './calibrator';
import { applyEdgeCalibrator } from './edge-calibration';
import type { EdgeCalibrationTable, EdgeCalibrator, EdgeFeatures } from './edge-calibration';
import type { CalibrationTable } from './fit-calibration';

/** A version's calibration indexed by the model's relation ids, for the serving path. */
export interface ServingCalibration {
  global: Calibrator;
  tail: (ShrunkCalibrator | undefined)[];
  head: (ShrunkCalibrator | undefined)[];
  /** Edges from both questions; absent for a version calibrated before edges were. */
  edge?: { global: EdgeCalibrationTable['global']; relations: (EdgeCalibrator | undefined)[] };
}

/** Relations of the table that the model does not have are ignored (they cannot be asked). */
export function servingCalibration(
  table: CalibrationTable,
  relations: string[],
  edgeTable?: EdgeCalibrationTable,
): ServingCalibration {
  const index = new Map(relations.map((name, i) => [name, i]));
  const out: ServingCalibration = {
    global: table.global,
    tail: new Array<ShrunkCalibrator | undefined>(relations.length),
    head: new Array<ShrunkCalibrator | undefined>(relations.length),
  };
  for (const r of table.relations) {
    const i = index.get(r.relation);
    if (i !== undefined) out[r.direction][i] = { own: r.own, weight: r.weight };
  }
  if (edgeTable) {
    const edge = new Array<EdgeCalibrator | undefined>(relations.length);
    for (const r of edgeTable.relations) {
      const i = index.get(r.relation);
      if (i !== undefined) edge[i] = { coefficients: r.coefficients, weight: r.weight };
    }
    out.edge = { global: edgeTable.global, relations: edge };
  }
  return out;
}

/**
 * The probability that the edge is true from its features (docs/api.md); a version without
 * edge calibrators answers with the tail question's calibrated probability.
 */
export function servedEdgeProbability(
  calibration: ServingCalibration,
  relation: number,
  features: EdgeFeatures,
): number {
  if (!calibration.edge)
    return servedProbability(calibration, relation, 'tail', features.tailLogit);
  const { global, relations } = calibration.edge;
  return applyEdgeCalibrator(global, relations[relation], features);
}

export function servedProbability(
  calibration: ServingCalibration,
  relation: number,
  direction: Direction,
  logit: number,
): number {
  const own = calibration[direction][relation];
  return own
    ? applyShrunk(own, calibration.global, logit)
    : applyCalibrator(calibration.global, logit);
}
