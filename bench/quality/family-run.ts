/**
 * The `default` preset (or a time budget, or the tuner) over the evaluation family
 * (family.ts): validation and test MRR, epochs, wall time and the resolved settings per graph,
 * one JSON line each in family-results.jsonl and a table at the end. Settings are chosen by
 * validation MRR elsewhere; this reports test MRR once per final setting.
 *
 *   npx tsx bench/quality/family-run.ts [--data <dir>] [--graphs A,B] [--time-budget 15m | --tune 20m]
 *     [--overrides '{"relationDim":30}'] [--threads 2]
 *
 * --overrides: settings over the sized `default` (a rule's alternative, for leave-one-graph-out).
 *
 * Each run also records what the product serves from that model (`served`): the rules mined from
 * the sample's train split and the combiner chosen on its validation split, as `kgc train
 * --dataset` does, then validation and test MRR ranked by the served logits (the model alone
 * where the combiner keeps it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDurationSeconds } from '../../src/config';
import {
  combineDatasetModel,
  evaluate,
  evaluateServed,
  graphSize,
  planTimeBudget,
  budgetTrainOptions,
  resolveTrainingConfig,
  train,
  tune,
} from '../../src/model';
import type {
  EngineConfig,
  TrainingOverrides,
  TrainingProgress,
  TuneResult,
} from '../../src/model';
import { takeDataOption } from '../datasets';
import { buildFamily } from './family';
import { option } from './cli-option';

const RESULTS = path.join(__dirname, 'family-results.jsonl');

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const only = option(rest, 'graphs')?.split(',');
  const budgetText = option(rest, 'time-budget');
  const tuneText = option(rest, 'tune');
  const threads = Number(option(rest, 'threads') ?? '2');
  const overridesText = option(rest, 'overrides');
  const given = overridesText ? (JSON.parse(overridesText) as TrainingOverrides) : {};
  const overrides: TrainingOverrides = { ...given, threads };
  const budget = budgetText ? parseDurationSeconds(budgetText) : undefined;
  const tuneSeconds = tuneText ? parseDurationSeconds(tuneText) : undefined;
  const base = tuneText ? `tune ${tuneText}` : budgetText ? `time budget ${budgetText}` : 'default';
  const mode = overridesText ? `${base} ${overridesText}` : base;
  const family = buildFamily(data, path.join(__dirname, 'family'));
  const rows: string[] = [];
  for (const member of family.filter((m) => !only || only.includes(m.name))) {
    const dataset = { dir: member.dir };
    const size = await graphSize(dataset);
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), `kgc-family-${member.name}-`));
    const started = Date.now();
    let config: EngineConfig;
    let validMrr: number | undefined;
    let epochs: number;
    let stop: string;
    // The tuner's plan and trials (settings and validation MRR per rung), kept for analysis.
    let tuning: Pick<TuneResult, 'plan' | 'trials' | 'kept'> | undefined;
    // Validation MRR by epoch (the final run's, for the tuner): was the run still improving?
    const curve: [number, number][] = [];
    const onProgress = (event: TrainingProgress) => {
      if (event.kind === 'validation' && event.metrics)
        curve.push([event.epoch, Number(event.metrics.overall.mrr.toFixed(4))]);
    };
    if (tuneSeconds) {
      const tuned = await tune(dataset, 'default', overrides, size, tuneSeconds, {
        outDir,
        onProgress,
        onTrial: (line) => console.log(`  ${line}`),
      });
      tuning = { plan: tuned.plan, trials: tuned.trials, kept: tuned.kept };
      config = tuned.config;
      validMrr = tuned.validMrr;
      epochs = tuned.summary.epochsRun;
      stop = `${tuned.summary.stop} (kept ${tuned.kept})`;
    } else {
      const plan = budget
        ? await planTimeBudget(dataset, 'default', overrides, size, budget)
        : undefined;
      config = plan?.config ?? resolveTrainingConfig('default', overrides, size);
      const summary = await train(dataset, config, {
        outDir,
        ...budgetTrainOptions(plan),
        onProgress,
      });
      validMrr = summary.valid?.overall.mrr;
      epochs = summary.epochsRun;
      stop = summary.stop;
    }
    const seconds = (Date.now() - started) / 1000;
    const test = (await evaluate(outDir, dataset, 'test', threads)).overall;
    const combineStarted = Date.now();
    const combined = await combineDatasetModel(outDir, member.dir);
    const servedValid = await evaluateServed(outDir, member.dir, 'valid');
    const servedTest = await evaluateServed(outDir, member.dir, 'test');
    const served = {
      serves: servedTest ? 'model and rules' : 'model alone',
      validMrr: servedValid?.overall.mrr ?? validMrr,
      testMrr: servedTest?.overall.mrr ?? test.mrr,
      testHits10: servedTest?.overall.hits10 ?? test.hits10,
      combineSeconds: Number(((Date.now() - combineStarted) / 1000).toFixed(1)),
      combiner: combined.at(-1),
    };
    const record = {
      graph: member.name,
      source: member.source,
      mode,
      size,
      validMrr,
      testMrr: test.mrr,
      testHits10: test.hits10,
      served,
      epochs,
      stop,
      seconds: Number(seconds.toFixed(1)),
      config,
      curve,
      ...(tuning && { tuning }),
      machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, load: os.loadavg()[0] },
      finishedAt: new Date().toISOString(),
    };
    fs.appendFileSync(RESULTS, `${JSON.stringify(record)}\n`);
    const row =
      `| ${member.name} | ${mode} | ${validMrr?.toFixed(4) ?? '–'} | ${test.mrr.toFixed(4)} | ` +
      `${test.hits10.toFixed(3)} | ${served.testMrr.toFixed(4)} (${served.serves}) | ${epochs} (${stop}) | ${(seconds / 60).toFixed(1)} | ` +
      `d_r ${config.relationDim}, batch ${config.batchSize}, lr ${config.lr.toPrecision(2)}, ls ${config.labelSmoothing}, dropout ${config.dropoutIn}, ${config.inverseMode}, ` +
      `averaging ${config.weightAverage} |`;
    rows.push(row);
    console.log(row);
    fs.rmSync(outDir, { recursive: true, force: true });
  }
  console.log(
    '\n| graph | mode | valid MRR | test MRR | test H@10 | served test MRR | epochs (stop) | minutes | settings |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const row of rows) console.log(row);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
