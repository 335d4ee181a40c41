import type { Direction } from '../../direction';
import { applyCalibrator, applyShrunk } from './calibrator';
import type { Calibrator, ShrunkCalibrator } from './calibrator';
import type { CalibrationTable } from './fit-calibration';

/** A version's calibration indexed by the model's relation ids, for the serving path. */
export interface ServingCalibration {
  global: Calibrator;
  tail: (ShrunkCalibrator | undefined)[];
  head: (ShrunkCalibrator | undefined)[];
}

/** Relations of the table that the model does not have are ignored (they cannot be asked). */
export function servingCalibration(
  table: CalibrationTable,
  relations: string[],
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
  return out;
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
