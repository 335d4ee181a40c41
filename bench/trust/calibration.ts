/**
 * Calibration on held-out edges: ECE, Brier score and log-loss of the probability before (the
 * sigmoid of the logit) and after calibration, on test edges and negatives not used in fitting
 * (fresh corruptions), with the mix of negatives. Target (issue 38): ECE <= 0.02 after.
 *
 *   npx tsx bench/trust/calibration.ts [--data <dir>] [--dataset FB15k-237 --dataset WN18RR]
 *       [--model <dir> | --models <dir>]
 *
 * Models are trained earlier (`kgc train --dataset ... --out /work/bench-models/<NAME>`); the
 * calibration is fitted here on valid.txt (the same step `kgc train --dataset` runs) and written
 * to results/<NAME>/ (calibration.json, reliability.svg), never into the model folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { calibrateDatasetModel } from '../../src/model';
import { f4, trustArgs } from './bench-args';

async function main(): Promise<void> {
  const args = trustArgs(
    process.argv.slice(2),
    ['FB15k-237', 'WN18RR'],
    ['train.txt', 'valid.txt', 'test.txt'],
  );
  const rows: string[] = [];
  for (const run of args.runs) {
    const outDir = path.join(args.results, run.name);
    const started = Date.now();
    const { summary, unknown } = await calibrateDatasetModel(run.model, run.dataset, {
      outDir,
      labelledNegatives: false,
    });
    const seconds = (Date.now() - started) / 1000;
    if (!summary) {
      rows.push(`| ${run.name} | no validation triple the model knows | | | | |`);
      continue;
    }
    const { before, after, fitMix: fit, measureMix: m } = summary;
    const record = {
      dataset: run.name,
      model: run.model,
      seconds,
      unknown,
      machine: os.cpus()[0]?.model,
      ...summary,
    };
    fs.writeFileSync(path.join(outDir, 'summary.json'), JSON.stringify(record, null, 2) + '\n');
    rows.push(
      `| ${run.name} | ${f4(before?.ece)} → **${f4(after?.ece)}** | ${f4(before?.brier)} → ${f4(after?.brier)} | ` +
        `${f4(before?.logLoss)} → ${f4(after?.logLoss)} | fit ${fit.positives}+ / ${fit.rejected} labelled, ` +
        `${fit.range} range, ${fit.uniform} uniform; test ${m.positives}+ / ${m.range} range, ${m.uniform} uniform | ` +
        `${seconds.toFixed(1)} s |`,
    );
  }
  console.log(
    `Calibration on test edges (both directions) and fresh negatives, ECE over 15 bins; target ECE ≤ 0.02\n`,
  );
  console.log(
    '| dataset | ECE before → after | Brier before → after | log-loss before → after | mix (positives / negatives) | time |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
