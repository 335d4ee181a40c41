/**
 * Triple classification (WN11, FB13): accuracy, precision, recall, F1 and ECE of
 * "probability >= 0.5" over test.txt (true) and test_negatives.txt (false), no threshold tuned
 * on test and none per relation. Twice: calibrated on valid.txt + valid_negatives.txt, and on
 * valid.txt with sampled negatives only (no labelled negatives at all); each scored by both
 * questions (the edge calibrator edgeProbabilities serves), by the same calibrator deaf to the
 * rules' evidence (what hearing them adds), by both on the model's logits without the combiner's
 * rule term (what the rules add in all), and by the tail question alone. Beside: the best
 * published embedding accuracy, TransD (Ji et al. 2015, per-relation thresholds tuned on valid).
 *
 *   npx tsx bench/trust/classification.ts [--data <dir>] [--dataset WN11 --dataset FB13]
 *       [--model <dir> | --models <dir>] [--results <dir>]
 *
 * Models are trained earlier (`kgc train --dataset ... --out /work/bench-models/<NAME>`);
 * calibrations go to results/<NAME>-labelled/ and results/<NAME>-sampled/ (-no-rules/ beside).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { calibrateDatasetModel, classifyTriples } from '../../src/model';
import { f4, trustArgs } from './bench-args';

const TRANSD: Record<string, number> = { WN11: 86.4, FB13: 89.1 };

async function main(): Promise<void> {
  const args = trustArgs(
    process.argv.slice(2),
    ['WN11', 'FB13'],
    ['train.txt', 'valid.txt', 'test.txt', 'valid_negatives.txt', 'test_negatives.txt'],
  );
  const rows: string[] = [];
  for (const run of args.runs) {
    // The model without its combiner (the rules not in its logits): a view of the folder
    // without combiner.json, the other files linked.
    const alone = fs.mkdtempSync(path.join(os.tmpdir(), `kgc-${run.name}-model-alone-`));
    for (const file of fs.readdirSync(run.model)) {
      if (file !== 'combiner.json')
        fs.symlinkSync(path.join(run.model, file), path.join(alone, file));
    }
    const variants = [
      { labelled: true, served: true, ruleFeatures: true },
      { labelled: true, served: true, ruleFeatures: false },
      { labelled: true, served: false, ruleFeatures: true },
      { labelled: true, served: false, ruleFeatures: false },
      { labelled: false, served: true, ruleFeatures: true },
      { labelled: false, served: true, ruleFeatures: false },
    ];
    for (const { labelled, served, ruleFeatures } of variants) {
      const model = served ? run.model : alone;
      const outDir = path.join(
        args.results,
        `${run.name}-${labelled ? 'labelled' : 'sampled'}` +
          `${served ? '' : '-model-alone'}${ruleFeatures ? '' : '-no-rules'}`,
      );
      const calibration = await calibrateDatasetModel(model, run.dataset, {
        outDir,
        labelledNegatives: labelled,
        ruleFeatures,
      });
      // The tail question alone does not hear the rules: once per negatives.
      const scoring = served && ruleFeatures ? (['edge', 'tail'] as const) : (['edge'] as const);
      const reports = await Promise.all(
        scoring.map((scoredBy) => classifyTriples(model, run.dataset, outDir, scoredBy)),
      );
      fs.writeFileSync(
        path.join(outDir, 'classification.json'),
        JSON.stringify(
          {
            dataset: run.name,
            model: run.model,
            labelled,
            served,
            ruleFeatures,
            reports,
            calibration,
          },
          null,
          2,
        ) + '\n',
      );
      const pct = (x: number) => (100 * x).toFixed(1);
      for (const report of reports) {
        const unknown = report.unknown.positives + report.unknown.negatives;
        const logits = served ? 'served logits' : "the model's logits";
        const scoredBy =
          report.scoredBy === 'tail'
            ? `tail question (${logits})`
            : `both questions (${logits}), rules ${ruleFeatures ? 'heard' : 'not heard'}`;
        rows.push(
          `| ${run.name} | ${labelled ? 'valid + valid_negatives' : 'valid, sampled negatives only'} | ` +
            `${scoredBy} | ` +
            `**${pct(report.accuracy)}** | ${pct(report.precision)} | ${pct(report.recall)} | ${pct(report.f1)} | ` +
            `${f4(report.ece)} | ${TRANSD[run.name] ?? 'n/a'} | ${report.positives} / ${report.negatives}` +
            `${unknown ? ` (${unknown} unknown, classified false)` : ''} |`,
        );
      }
    }
    fs.rmSync(alone, { recursive: true, force: true });
  }
  console.log(
    'Triple classification at probability ≥ 0.5 (no threshold search), test.txt vs test_negatives.txt\n',
  );
  console.log(
    '| dataset | calibrated on | scored by | accuracy % | precision % | recall % | F1 % | ECE | TransD accuracy % | true / false |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
