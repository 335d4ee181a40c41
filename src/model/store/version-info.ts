import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import type { CalibrationSummary } from '../calibration/calibration-file';
import type { Metrics } from '../metrics';
import type { TrainSummary } from '../train';
import type { EngineConfig, TrainingOverrides } from '../training-settings';
import type { WarmStartRecord } from '../warm-start-schedule';

/** The graph a version was trained from, and how it was split. */
export interface SnapshotInfo {
  triples: number;
  entities: number;
  relations: number;
  /** sha256 of the sorted triple keys: equal for the same set of edges. */
  fingerprint: string;
  train: number;
  valid: number;
  test: number;
  seed: number;
  heldOutRate: number;
  movedToTrain: number;
  /** The relation types exported (`--relation`), null: all; absent in older versions (all). */
  relationFilter?: string[] | null;
}

export interface CurvePoint {
  epoch: number;
  loss?: number;
  validMrr?: number;
}

export interface TrainingInfo {
  epochsRun: number;
  modelEpoch: number;
  stop: TrainSummary['stop'];
  seconds: number;
  epochSeconds: number;
  /** The version whose weights the run started from; null or absent: a fresh init. */
  warmStartFrom?: string | null;
  /** How the warm start was sized and what it mapped (with warmStartFrom). */
  warmStart?: WarmStartRecord;
  /** Why the run started from a fresh init (forced, no active version, settings changed...). */
  fromScratch?: string;
}

/** Everything a version directory records besides the engine's own files (version.json). */
export interface VersionInfo {
  version: string;
  createdAt: string;
  trigger: string;
  preset: string;
  overrides: TrainingOverrides;
  /** The resolved engine config the weights were trained with. */
  config: EngineConfig;
  snapshot: SnapshotInfo;
  training: TrainingInfo;
  /** Held-out metrics of the kept weights, overall and per relation (null: split was empty). */
  metrics: { test: Metrics | null; valid: Metrics | null };
  curve: CurvePoint[];
  /** Seconds per job phase up to the write (export, split, train, evaluate). */
  timings: Record<string, number>;
  /** Where tuned settings were used: searched by this job, or reused from an earlier one. */
  tuned?: TuningInfo;
  /** ECE, Brier, log-loss before/after calibration and the negative mix (calibration.json). */
  calibration?: CalibrationSummary;
}

export interface TuningInfo {
  /** True: this job searched (`--tune`); false: it reused the scope's stored winner. */
  searched: boolean;
  settings: TrainingOverrides;
  /** Validation MRR of the winner when it was tuned. */
  validMrr: number;
  /** The version whose tuning found the settings (when reused). */
  from?: string;
}

export const VERSION_FILE = 'version.json';
export const METRICS_FILE = 'metrics.json';
export const CURVE_FILE = 'training-curve.svg';
/** Sorted keys (little-endian float64) of every edge of the snapshot / of its train part. */
export const SNAPSHOT_KEYS_FILE = 'snapshot.keys';
export const TRAINED_KEYS_FILE = 'trained.keys';
/** Written by the engine: vocabularies, config, checksum; and the weights. */
export const MANIFEST_FILE = 'manifest.json';
export const TENSORS_FILE = 'model.safetensors';
/*
 * Optional serving files (older versions lack them, and still serve): calibration.json and
 * reliability.svg, the calibrators (model/calibration; absent: the sigmoid); types.json, the
 * relations' domains and ranges (model/types; absent: nothing filtered); rules.json, the mined
 * path rules (model/rules; absent: reasons from similar entities only); graph.bin, the snapshot's
 * edges in the model's ids (model/rules/graph-file.ts; absent: reasons read from Neo4j directly);
 * suggestions.bin (older versions: suggestions.json), the best missing edges across the graph,
 * written after promotion (model/suggestions; absent: an empty review queue); canary.json,
 * held-out edges that fold-ins must not harm (model/fold-in/canary-file.ts; absent: a sample of
 * graph.bin stands in).
 */

export const REQUIRED_FILES = [
  MANIFEST_FILE,
  TENSORS_FILE,
  VERSION_FILE,
  SNAPSHOT_KEYS_FILE,
  TRAINED_KEYS_FILE,
];

function invalid(dir: string, why: string): KgcError {
  return new KgcError(
    ErrorCode.MODEL_INVALID,
    `The model version in ${dir} is unusable: ${why}. Retrain (\`npx kgc train\`) or roll back ` +
      '(`npx kgc models rollback`).',
  );
}

export function writeVersionInfo(dir: string, info: VersionInfo): void {
  fs.writeFileSync(path.join(dir, VERSION_FILE), JSON.stringify(info, null, 2) + '\n');
  fs.writeFileSync(
    path.join(dir, METRICS_FILE),
    JSON.stringify({ version: info.version, ...info.metrics }, null, 2) + '\n',
  );
}

/** Reads version.json after checking every required file is there; MODEL_INVALID otherwise. */
export function readVersionInfo(dir: string): VersionInfo {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw invalid(dir, 'the directory does not exist');
  }
  for (const file of REQUIRED_FILES) {
    if (!fs.existsSync(path.join(dir, file))) throw invalid(dir, `${file} is missing`);
  }
  let info: VersionInfo;
  try {
    info = JSON.parse(fs.readFileSync(path.join(dir, VERSION_FILE), 'utf8')) as VersionInfo;
  } catch (error) {
    throw invalid(dir, `${VERSION_FILE} is not valid JSON (${(error as Error).message})`);
  }
  if (typeof info.version !== 'string' || typeof info.snapshot !== 'object' || !info.snapshot) {
    throw invalid(dir, `${VERSION_FILE} lacks the version or snapshot fields`);
  }
  return info;
}

export function writeKeys(file: string, sorted: Float64Array): void {
  fs.writeFileSync(file, Buffer.from(sorted.buffer, sorted.byteOffset, sorted.byteLength));
}

export function readKeys(file: string): Float64Array {
  const bytes = fs.readFileSync(file);
  if (bytes.length % 8 !== 0) throw invalid(path.dirname(file), `${file} is truncated`);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return new Float64Array(copy.buffer);
}

/** The vocabularies the engine saved with the weights. */
export function readVocabulary(dir: string): { entities: string[]; relations: string[] } {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as {
      entities?: unknown;
      relations?: unknown;
    };
    if (!Array.isArray(manifest.entities) || !Array.isArray(manifest.relations)) {
      throw new Error('no vocabularies');
    }
    return { entities: manifest.entities as string[], relations: manifest.relations as string[] };
  } catch (error) {
    throw invalid(dir, `${MANIFEST_FILE} is unreadable (${(error as Error).message})`);
  }
}
