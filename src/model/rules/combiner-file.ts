import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { readModelJson } from '../store/model-json';
import type { CombinerSetting, RuleCombiner } from './rule-combiner';

/** How a version's answers combine the model with its rules, beside its weights. */
export const COMBINER_FILE = 'combiner.json';

/** What the fit measured on validation (MRR over both directions of the sampled edges). */
export interface CombinerFit {
  /** Validation edges the fit used (a seeded sample). */
  edges: number;
  modelMrr: number;
  /** The chosen combiner on the edges it was chosen on (optimistic). */
  hybridMrr: number;
  /** Chosen on one half of the edges, MRR on the other: [model alone, hybrid] per half. */
  halves: [number, number][];
  seconds: number;
}

export interface CombinerFile extends RuleCombiner {
  format: 1;
  /** Index entries one question's rule walks may take together (as the fit walked them). */
  walkBudget: number;
  fit: CombinerFit;
}

export function writeCombiner(dir: string, combiner: CombinerFile): void {
  fs.writeFileSync(path.join(dir, COMBINER_FILE), `${JSON.stringify(combiner)}\n`);
}

function isSetting(value: unknown): value is CombinerSetting {
  const s = value as CombinerSetting;
  return (
    typeof s === 'object' &&
    s !== null &&
    (s.aggregate === 'max' || s.aggregate === 'noisyOr') &&
    Number.isFinite(s.w) &&
    s.w >= 0
  );
}

/** The version's combiner, or undefined when it has none (then the model answers alone). */
export function readCombiner(dir: string): CombinerFile | undefined {
  const file = path.join(dir, COMBINER_FILE);
  if (!fs.existsSync(file)) return undefined;
  const unusable = (why: string) =>
    new KgcError(
      ErrorCode.MODEL_INVALID,
      `${COMBINER_FILE} of model ${path.basename(dir)} is unusable (${why}): retrain, or delete the file to serve the model alone.`,
    );
  const parsed = readModelJson(file, 16 * 2 ** 20, unusable) as CombinerFile;
  const valid =
    parsed?.format === 1 &&
    Number.isFinite(parsed.walkBudget) &&
    parsed.walkBudget > 0 &&
    isSetting(parsed.global) &&
    typeof parsed.groups === 'object' &&
    parsed.groups !== null &&
    Object.values(parsed.groups).every(isSetting);
  if (!valid) throw unusable('not a combiner, format 1');
  return parsed;
}
