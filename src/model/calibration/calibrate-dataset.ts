import fs from 'node:fs';
import path from 'node:path';
import { Scorer } from '../scorer';
import { writeCanaryFile } from '../fold-in/canary-file';
import { calibrateModelDir } from './calibrate-model';
import { dirRules } from '../rules/served-combiner';
import { withRuleEvidence } from '../with-rule-evidence';
import { AnsweredQuestions } from '../rules/answered-questions';
import type { CalibrationSummary } from './calibration-file';
import { readTripleFile } from './triple-file';
import type { ModelTriples, Vocabulary } from './triple-file';

export const VALID_NEGATIVES_FILE = 'valid_negatives.txt';
export const TEST_NEGATIVES_FILE = 'test_negatives.txt';

export interface DatasetCalibrationOptions {
  /** false: ignore valid_negatives.txt / test_negatives.txt (sampled negatives only). */
  labelledNegatives?: boolean;
  seed?: number;
  /** Where calibration.json and reliability.svg go (default: the model directory). */
  outDir?: string;
  /** false: the edge calibrator does not hear the rules' evidence (to measure what it adds). */
  ruleFeatures?: boolean;
  /** The model in the model directory, where the caller has it loaded already. */
  scorer?: Scorer;
}

export interface DatasetCalibration {
  summary: CalibrationSummary | null;
  /** Lines skipped per file because the model does not know an entity or relation in them. */
  unknown: Record<string, number>;
  /** The labelled negative files used. */
  negativeFiles: string[];
}

export function vocabularyOf(scorer: Scorer): Vocabulary {
  return { entity: (id) => scorer.findEntity(id), relation: (name) => scorer.findRelation(name) };
}

function concat(parts: Uint32Array[]): Uint32Array {
  const out = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/**
 * Calibrates a model trained on a dataset folder (`kgc train --dataset`) on its served logits
 * (with its rules' evidence where it has a combiner, combine-dataset-model.ts): fitted on valid.txt
 * (and valid_negatives.txt when there is one), measured on test.txt (and test_negatives.txt)
 * with fresh corruptions. Writes calibration.json and reliability.svg into `modelDir`.
 */
export async function calibrateDatasetModel(
  modelDir: string,
  datasetDir: string,
  options: DatasetCalibrationOptions = {},
): Promise<DatasetCalibration> {
  const scorer = options.scorer ?? Scorer.load(modelDir);
  const vocabulary = vocabularyOf(scorer);
  const unknown: Record<string, number> = {};
  const negativeFiles: string[] = [];
  const read = (name: string, optional = false): ModelTriples => {
    const file = path.join(datasetDir, name);
    if (optional && (options.labelledNegatives === false || !fs.existsSync(file))) {
      return { ids: new Uint32Array(0), unknown: 0 };
    }
    const triples = readTripleFile(file, vocabulary);
    if (optional) negativeFiles.push(name);
    if (triples.unknown > 0) unknown[name] = triples.unknown;
    return triples;
  };
  const [train, valid, test] = ['train.txt', 'valid.txt', 'test.txt'].map((f) => read(f).ids) as [
    Uint32Array,
    Uint32Array,
    Uint32Array,
  ];
  // The model's canary for fold-in: held-out test edges (model ids), beside calibration.json.
  fs.mkdirSync(options.outDir ?? modelDir, { recursive: true });
  writeCanaryFile(options.outDir ?? modelDir, test, options.seed ?? 0);
  // The served logits: the model's plus its rules' evidence where the folder combines them.
  const { walker, combiner } = await dirRules(modelDir, scorer);
  // One memory of the walks for the served logits and the edge calibrator's features.
  const walks = walker && new AnsweredQuestions(walker);
  const summary = await calibrateModelDir(
    modelDir,
    {
      known: concat([train, valid, test]),
      // Counted in the training triples: test.txt's true triples must not count for each other.
      counted: train,
      fit: { name: 'valid', positives: valid, negatives: read(VALID_NEGATIVES_FILE, true).ids },
      measure: { name: 'test', positives: test, negatives: read(TEST_NEGATIVES_FILE, true).ids },
      seed: options.seed ?? 0,
      ...(walks && options.ruleFeatures !== false ? { rules: walks } : {}),
    },
    `kgc ${path.basename(modelDir)}: reliability on test`,
    combiner ? withRuleEvidence(scorer, combiner, walks) : scorer,
    options.outDir,
  );
  return { summary, unknown, negativeFiles };
}
