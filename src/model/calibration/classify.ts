import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { Scorer } from '../scorer';
import { applyCalibrator } from './calibrator';
import { expectedCalibrationError } from './calibration-metrics';
import { readCalibrationFile } from './calibration-file';
import { TEST_NEGATIVES_FILE, vocabularyOf } from './calibrate-dataset';
import { edgeProbability } from './edge-calibration';
import { countingGraph, edgeFeatures } from './role-counts';
import { calibratedProbability } from './fit-calibration';
import { readTripleFile } from './triple-file';
import { dirRules } from '../rules/served-combiner';
import { edgeRuleEvidence } from '../rules/edge-rule-evidence';
import { withRuleEvidence } from '../with-rule-evidence';

export interface ClassificationReport {
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  /** ECE of the probability over the triples the model could score. */
  ece: number;
  positives: number;
  negatives: number;
  /** Triples naming an entity or relation the model does not know: classified false. */
  unknown: { positives: number; negatives: number };
  /** Whether the model directory had calibration.json (else the sigmoid was used). */
  calibrated: boolean;
  /** 'edge': both questions' logits through the edge calibrator; 'tail': (h, r, ?) alone. */
  scoredBy: 'edge' | 'tail';
}

/**
 * Triple classification: "probability >= 0.5" over test.txt (true) and test_negatives.txt
 * (false). Each triple's probability is the one edgeProbabilities serves: the edge calibrator
 * over the logits of both questions, (h, r, ?) scoring t and (t, r⁻¹, ?) scoring h, and its
 * ends' counts in train.txt; with
 * `scoredBy: 'tail'`, or a calibration without edge calibrators, the (r, tail) calibrator of
 * the first alone. The calibration is read from `calibrationDir` (default: the model's own
 * calibration.json; none there: the sigmoid of the tail logit).
 */
export async function classifyTriples(
  modelDir: string,
  datasetDir: string,
  calibrationDir = modelDir,
  scoredBy: 'edge' | 'tail' = 'edge',
): Promise<ClassificationReport> {
  for (const name of ['test.txt', TEST_NEGATIVES_FILE]) {
    if (!fs.existsSync(path.join(datasetDir, name))) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `--classify needs ${name} in ${datasetDir} (known-true triples in test.txt, known-false in ` +
          `${TEST_NEGATIVES_FILE}, both head<TAB>relation<TAB>tail).`,
      );
    }
  }
  const model = Scorer.load(modelDir);
  // The served logits, as calibration fitted on them: the model's plus its rules' evidence.
  const { walker, combiner } = await dirRules(modelDir, model);
  const scorer = combiner ? withRuleEvidence(model, combiner) : model;
  const calibration = readCalibrationFile(calibrationDir);
  const edge = scoredBy === 'edge' ? calibration?.edge?.table : undefined;
  const vocabulary = vocabularyOf(model);
  // The ends' counts are read in the training triples, as calibrateDatasetModel fitted them.
  const counted = edge
    ? await countingGraph(
        scorer.entities.length,
        scorer.relations.length,
        readTripleFile(path.join(datasetDir, 'train.txt'), vocabulary).ids,
      )
    : null;
  const probabilities: number[] = [];
  const labels: number[] = [];
  const unknown = { positives: 0, negatives: 0 };
  for (const [name, label] of [
    ['test.txt', 1],
    [TEST_NEGATIVES_FILE, 0],
  ] as const) {
    const triples = readTripleFile(path.join(datasetDir, name), vocabulary);
    unknown[label ? 'positives' : 'negatives'] = triples.unknown;
    const pick = (offset: number) => triples.ids.filter((_, i) => i % 3 === offset);
    const [heads, relations, tails] = [pick(0), pick(1), pick(2)];
    const logits = scorer.scoreTriples(heads, relations, tails, 'tail');
    const headLogits = edge ? scorer.scoreTriples(heads, relations, tails, 'head') : null;
    // The rules' evidence of both questions, as the edge calibrator was fitted with it.
    const evidence =
      edge && walker ? await edgeRuleEvidence(walker, heads, relations, tails) : undefined;
    logits.forEach((z, i) => {
      const r = relations[i] as number;
      const relation = scorer.relations[r] as string;
      probabilities.push(
        edge && headLogits && counted
          ? edgeProbability(
              edge,
              relation,
              edgeFeatures(
                counted,
                heads[i] as number,
                r,
                tails[i] as number,
                z,
                headLogits[i] as number,
                evidence && { tail: evidence.tail[i] as number, head: evidence.head[i] as number },
              ),
            )
          : calibration
            ? calibratedProbability(calibration.table, relation, 'tail', z)
            : applyCalibrator({ kind: 'sigmoid' }, z),
      );
      labels.push(label);
    });
  }
  let tp = 0;
  let fp = 0;
  let tn = unknown.negatives;
  let fn = unknown.positives;
  probabilities.forEach((p, i) => {
    const yes = p >= 0.5;
    if (labels[i]) {
      if (yes) tp++;
      else fn++;
    } else if (yes) fp++;
    else tn++;
  });
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  return {
    accuracy: (tp + tn) / Math.max(1, tp + tn + fp + fn),
    precision,
    recall,
    f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
    ece: expectedCalibrationError(probabilities, labels),
    positives: tp + fn,
    negatives: tn + fp,
    unknown,
    calibrated: calibration !== null,
    scoredBy: edge ? 'edge' : 'tail',
  };
}
