import { calibrateDatasetModel } from '../../model';
import type { CalibrationSummary, Scorer } from '../../model';
import type { CliOutput } from '../cli-output';

/**
 * `kgc train --dataset`: calibrates the model just written (valid.txt and valid_negatives.txt
 * when present; measured on test.txt, test_negatives.txt) and says what it did.
 */
export async function calibrateTrainedModel(
  out: CliOutput,
  modelDir: string,
  datasetDir: string,
  scorer?: Scorer,
): Promise<CalibrationSummary | null> {
  const { summary, unknown, negativeFiles } = await calibrateDatasetModel(modelDir, datasetDir, {
    ...(scorer ? { scorer } : {}),
  });
  for (const [file, count] of Object.entries(unknown)) {
    out.info(
      `Calibration: skipped ${count} line(s) of ${file} naming an entity or relation the model does not know.`,
    );
  }
  if (!summary) {
    out.info(
      'Calibration: valid.txt holds no triple the model can score; probabilities stay the sigmoid of the logit.',
    );
    return null;
  }
  const { before, after, fitMix } = summary;
  out.info(
    `Calibrated on valid.txt${negativeFiles.length ? ` and ${negativeFiles.join(', ')}` : ''}: ` +
      `${fitMix.positives} positives, ${fitMix.rejected} labelled negatives, ${fitMix.range} range and ` +
      `${fitMix.uniform} uniform corruptions` +
      (before && after
        ? `; on test, ECE ${before.ece.toFixed(4)} -> ${after.ece.toFixed(4)}, Brier ` +
          `${before.brier.toFixed(4)} -> ${after.brier.toFixed(4)}, log-loss ` +
          `${before.logLoss.toFixed(4)} -> ${after.logLoss.toFixed(4)}`
        : '') +
      `; calibration.json and reliability.svg in ${modelDir}`,
  );
  return summary;
}
