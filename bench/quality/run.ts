/**
 * One quality run: trains NePTuNe on a benchmark graph with a preset plus overrides, evaluates the
 * kept (best validation MRR) model on the test split, and appends one JSON line to results.jsonl.
 *
 *   npx tsx bench/quality/run.ts [--data <dir>] <name> <dataset> <preset> '<overrides JSON>' '<hypothesis>'
 *
 * `<dataset>`: a name (Kinship, UMLS, Nations, ...) under --data (or KGC_DATASETS), or a folder.
 *
 * Progress (every validation) goes to stderr; the summary line to stdout.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import {
  evaluate,
  graphSize,
  resolveTrainingConfig,
  train,
  TrainingOverrides,
} from '../../src/model';
import { datasetDir as findDataset, takeDataOption } from '../datasets';

const CONVE_MRR: Record<string, number> = { Kinship: 0.83, UMLS: 0.94, Nations: 0.82 };

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const [name, datasetArg, preset, overridesJson, hypothesis] = rest;
  if (!name || !datasetArg || !preset) {
    throw new Error(
      'usage: run.ts [--data <dir>] <name> <dataset> <preset> [overrides JSON] [hypothesis]',
    );
  }
  const datasetDir = findDataset(datasetArg, data);
  const overrides = JSON.parse(overridesJson ?? '{}') as TrainingOverrides;
  const config = resolveTrainingConfig(
    preset,
    { threads: 1, ...overrides },
    await graphSize({ dir: datasetDir }),
  );
  const outDir = join('/tmp/q', name);
  mkdirSync(outDir, { recursive: true });
  const dataset = basename(datasetDir);
  const load = loadavg()[0]?.toFixed(2);
  const summary = await train({ dir: datasetDir }, config, {
    outDir,
    onProgress: (e) => {
      if (e.kind === 'validation' && e.metrics) {
        const m = e.metrics.overall;
        process.stderr.write(
          `${name} epoch ${e.epoch} valid MRR ${m.mrr.toFixed(4)} H@1 ${m.hits1.toFixed(3)} ` +
            `H@10 ${m.hits10.toFixed(3)} best ${e.bestMrr?.toFixed(4)} lr ${e.lr?.toExponential(2)}\n`,
        );
      }
    },
  });
  const test = (await evaluate(summary.modelDir, { dir: datasetDir }, 'test', 1)).overall;
  const record = {
    name,
    dataset,
    preset,
    overrides,
    hypothesis: hypothesis ?? '',
    config,
    epochsRun: summary.epochsRun,
    keptEpoch: summary.modelEpoch,
    stop: summary.stop,
    validMrr: summary.valid?.overall.mrr,
    test,
    seconds: Number(summary.seconds.toFixed(1)),
    epochSeconds: Number(summary.epochSeconds.toFixed(3)),
    conveMrr: CONVE_MRR[dataset],
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, loadAtStart: load },
    finishedAt: new Date().toISOString(),
  };
  appendFileSync(join(__dirname, 'results.jsonl'), JSON.stringify(record) + '\n');
  process.stdout.write(
    `${name} ${dataset} kept ${summary.modelEpoch}/${summary.epochsRun} test MRR ${test.mrr.toFixed(4)} ` +
      `MR ${test.mr.toFixed(2)} H@1 ${test.hits1.toFixed(3)} H@3 ${test.hits3.toFixed(3)} ` +
      `H@10 ${test.hits10.toFixed(3)} ${summary.seconds.toFixed(1)} s\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
