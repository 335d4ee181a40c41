import fs from 'node:fs';
import path from 'node:path';
import type { Direction } from '../../direction';
import { ErrorCode, KgcError } from '../../errors';
import type { Calibrator } from './calibrator';
import type { CalibrationMetrics, ReliabilityBin } from './calibration-metrics';
import type { NegativeMix } from './calibration-set';
import { EDGE_FEATURES, EDGE_FEATURES_WITHOUT_RULES } from './edge-calibration';
import type { EdgeCalibrationTable } from './edge-calibration';
import type { CalibrationTable } from './fit-calibration';
import { isRecord, readModelJson } from '../store/model-json';

export const CALIBRATION_FILE = 'calibration.json';
export const RELIABILITY_FILE = 'reliability.svg';

export interface RelationMetrics {
  relation: string;
  direction: Direction;
  before: CalibrationMetrics;
  after: CalibrationMetrics;
}

/** Before (the sigmoid of the logit) and after calibration, on examples not fitted on. */
export interface CalibrationSummary {
  /** Where the calibrators were fitted and measured (e.g. valid / test). */
  fittedOn: string;
  measuredOn: string;
  /** Positives : negatives by weight within each (relation, direction). */
  ratio: '1:1';
  eceBins: number;
  before: CalibrationMetrics | null;
  after: CalibrationMetrics | null;
  fitMix: NegativeMix;
  measureMix: NegativeMix;
}

/**
 * An edge's probability from both of its questions (edgeProbabilities, triple classification),
 * measured on the measuring set's edges: each held-out edge once, corruptions of either end.
 */
export interface EdgeCalibration {
  table: EdgeCalibrationTable;
  /** The tail question's calibrated probability alone on the same edges. */
  tailOnly: CalibrationMetrics | null;
  after: CalibrationMetrics | null;
}

export interface CalibrationFile extends CalibrationSummary {
  format: 1;
  table: CalibrationTable;
  perRelation: RelationMetrics[];
  reliability: { before: ReliabilityBin[]; after: ReliabilityBin[] };
  /** Absent in files written before edges were calibrated: the tail calibrator serves. */
  edge?: EdgeCalibration;
}

/**
 * Writes the calibration; refuses (INTERNAL, nothing written) one the server would refuse to
 * read, so that a version is never promoted with calibrators it cannot serve.
 */
export function writeCalibrationFile(dir: string, file: CalibrationFile): void {
  const problem = calibrationFileProblem(file);
  if (problem !== null) {
    throw new KgcError(
      ErrorCode.INTERNAL,
      `the calibration fitted for ${dir} is unusable (${problem}); nothing was written`,
    );
  }
  fs.writeFileSync(path.join(dir, CALIBRATION_FILE), JSON.stringify(file, null, 1) + '\n');
}

/** A calibration file is at most this big (a few KB a relation is written). */
const MAX_CALIBRATION_BYTES = 32 * 2 ** 20;

/**
 * Coefficients and logits are at most this large in magnitude: any a fit writes is far below
 * it, and a product or sum of two stays finite (no Inf - Inf turning into NaN).
 */
export const MAX_COEFFICIENT = 1e6;

function finite(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= MAX_COEFFICIENT;
}

function calibratorProblem(c: Calibrator | undefined): string | null {
  if (!isRecord(c)) return 'a calibrator is missing';
  if (c.kind === 'sigmoid') return null;
  if (c.kind === 'platt')
    return finite(c.a) && c.a > 0 && finite(c.b)
      ? null
      : `a Platt calibrator needs 0 < a <= ${MAX_COEFFICIENT} and |b| <= ${MAX_COEFFICIENT}`;
  if (c.kind === 'isotonic') {
    const ok =
      Array.isArray(c.x) &&
      Array.isArray(c.y) &&
      c.x.length === c.y.length &&
      c.x.length > 0 &&
      c.x.every((v, i) => finite(v) && (i === 0 || v >= (c.x[i - 1] as number))) &&
      c.y.every(
        (v, i) => finite(v) && v >= 0 && v <= 1 && (i === 0 || v >= (c.y[i - 1] as number)),
      );
    return ok ? null : 'an isotonic calibrator needs ascending x and non-decreasing y in [0, 1]';
  }
  return `unknown calibrator kind ${JSON.stringify((c as { kind?: unknown }).kind)}`;
}

/**
 * The calibration of a model directory; null when it has none (older versions, files-path
 * models trained before calibration): they keep the sigmoid. A present but unusable file is
 * refused with MODEL_INVALID rather than served as something it is not.
 */
export function readCalibrationFile(dir: string): CalibrationFile | null {
  const file = path.join(dir, CALIBRATION_FILE);
  if (!fs.existsSync(file)) return null;
  const parsed = readModelJson(file, MAX_CALIBRATION_BYTES, (why) =>
    invalid(dir, why),
  ) as CalibrationFile;
  const problem = calibrationFileProblem(parsed);
  if (problem !== null) throw invalid(dir, problem);
  return parsed;
}

/** What makes a calibration file unusable to the server, or null. */
function calibrationFileProblem(parsed: CalibrationFile): string | null {
  const table = isRecord(parsed) ? parsed.table : undefined;
  if (!isRecord(table) || !Array.isArray(table.relations)) return 'it lacks the calibrators';
  const problem =
    calibratorProblem(table.global) ??
    table.relations
      .map((r) =>
        !isRecord(r)
          ? 'a calibrator of a relation is not an object'
          : typeof r.relation !== 'string' || (r.direction !== 'tail' && r.direction !== 'head')
            ? 'a calibrator lacks its relation or direction'
            : !finite(r.weight) || r.weight < 0 || r.weight > 1
              ? `the weight of ${r.relation} [${r.direction}] is not in [0, 1]`
              : calibratorProblem(r.own),
      )
      .find((p) => p !== null) ??
    null;
  return problem ?? (parsed.edge === undefined ? null : edgeTableProblem(parsed.edge?.table));
}

function coefficientsProblem(c: unknown, features: number): string | null {
  return Array.isArray(c) && c.length === features + 1 && c.every(finite)
    ? null
    : `edge coefficients must be ${features + 1} numbers of magnitude at most ${MAX_COEFFICIENT}`;
}

/** The feature lists a served edge calibrator may have: today's, and the one before the rules. */
const EDGE_FEATURE_LISTS: readonly (readonly string[])[] = [
  EDGE_FEATURES,
  EDGE_FEATURES_WITHOUT_RULES,
];

function edgeTableProblem(table: EdgeCalibrationTable | undefined): string | null {
  if (!isRecord(table) || !isRecord(table.global) || !Array.isArray(table.relations)) {
    return 'it lacks the edge calibrators';
  }
  const features = Array.isArray(table.features) ? table.features.join() : undefined;
  const list = EDGE_FEATURE_LISTS.find((l) => l.join() === features);
  if (!list) {
    return `the edge features are not ${EDGE_FEATURES.join(', ')} (written by another kgc version)`;
  }
  return (
    coefficientsProblem(table.global.coefficients, list.length) ??
    table.relations
      .map((r) =>
        !isRecord(r) || typeof r.relation !== 'string'
          ? 'an edge calibrator lacks its relation'
          : !finite(r.weight) || r.weight < 0 || r.weight > 1
            ? `the edge weight of ${r.relation} is not in [0, 1]`
            : coefficientsProblem(r.coefficients, list.length),
      )
      .find((p) => p !== null) ??
    null
  );
}

function invalid(dir: string, why: string): KgcError {
  return new KgcError(
    ErrorCode.MODEL_INVALID,
    `${CALIBRATION_FILE} in ${dir} is unusable: ${why}. Retrain (\`npx kgc train\`) or delete the ` +
      'file to serve the uncalibrated sigmoid.',
  );
}
