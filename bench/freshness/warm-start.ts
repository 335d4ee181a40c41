/**
 * Warm start against a from-scratch retrain after the graph grew (issue 41's protocol):
 *
 *   npx tsx bench/freshness/warm-start.ts [--data <dir>] [--dataset FB15k-237] [--budget 45m]
 *       [--new-share 0.05] [--seed 1] [--threads 0] [--overrides '{"entityDim":32}']
 *       [--lr-scale 0.5] [--min-epoch-share 0.1] [--epochs-per-change 3]
 *
 * A seeded `--new-share` of the train edges is held out as "new"; a base model trains from
 * scratch on the rest within `--budget` (as the job does with a time budget: the plan's config
 * and time limit). Then, on all the train edges, (a) a warm start from the base model with the
 * schedule the job would choose (src/model/warm-start-schedule.ts), and (b) a from-scratch run
 * within the same budget; both validate on the validation split, every validation timed from
 * the run's start. Printed: the time the warm start takes to get within .005 of the
 * from-scratch run's final (kept) validation MRR, and its ratio to the from-scratch run's time
 * (target at most 30%). Results go to results/warm-start-<dataset>.json.
 *
 * Run it on a quiet machine: every number is a wall time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDurationSeconds } from '../../src/config/env-readers';
import {
  budgetTrainOptions,
  graphSize,
  planTimeBudget,
  train,
  warmStartSchedule,
} from '../../src/model';
import type { TrainingArrays, TrainingOverrides, TrainSummary } from '../../src/model';
import { datasetDir, takeDataOption } from '../datasets';
import { heldOutSplit, readSplits, type Triples } from './split-new-edges';

const RESULTS = path.join(__dirname, 'results');
const WITHIN = 0.005;

function option(argv: string[], name: string, fallback: string): string {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? (argv[i + 1] as string) : fallback;
}

interface CurvePoint {
  seconds: number;
  epoch: number;
  mrr: number;
}

/** Vocabularies in first-seen order and flat id triples, as the graph export gives them. */
function toArrays(splits: { train: Triples; valid: Triples; test: Triples }): TrainingArrays {
  const entities = new Map<string, number>();
  const relations = new Map<string, number>();
  const id = (m: Map<string, number>, k: string) => {
    let v = m.get(k);
    if (v === undefined) m.set(k, (v = m.size));
    return v;
  };
  const flat = (rows: Triples) =>
    Uint32Array.from(
      rows.flatMap(([h, r, t]) => [id(entities, h), id(relations, r), id(entities, t)]),
    );
  const train = flat(splits.train);
  const valid = flat(splits.valid);
  const test = flat(splits.test);
  return { entities: [...entities.keys()], relations: [...relations.keys()], train, valid, test };
}

async function timedRun(
  label: string,
  run: (onValidation: (epoch: number, mrr: number) => void) => Promise<TrainSummary>,
): Promise<{ summary: TrainSummary; curve: CurvePoint[] }> {
  const curve: CurvePoint[] = [];
  const started = process.hrtime.bigint();
  const summary = await run((epoch, mrr) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    curve.push({ seconds, epoch, mrr });
    process.stderr.write(
      `${label}: epoch ${epoch} valid MRR ${mrr.toFixed(4)} at ${seconds.toFixed(1)} s\n`,
    );
  });
  return { summary, curve };
}

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const dataset = option(rest, 'dataset', 'FB15k-237');
  const budget = parseDurationSeconds(option(rest, 'budget', '45m'));
  if (budget === undefined) throw new Error('--budget needs a duration such as 45m or 90s');
  const newShare = Number(option(rest, 'new-share', '0.05'));
  const seed = Number(option(rest, 'seed', '1'));
  const overrides: TrainingOverrides = {
    threads: Number(option(rest, 'threads', '0')),
    ...(JSON.parse(option(rest, 'overrides', '{}')) as TrainingOverrides),
  };
  const tuning = {
    lrScale: Number(option(rest, 'lr-scale', '0.5')),
    minEpochShare: Number(option(rest, 'min-epoch-share', '0.1')),
    epochsPerChange: Number(option(rest, 'epochs-per-change', '3')),
    maxChangeShare: 1,
  };
  const splits = readSplits(datasetDir(dataset, data));
  const { kept, held } = heldOutSplit(splits.train, newShare, seed);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-warm-bench-'));
  const baseData = toArrays({ ...splits, train: kept });
  const fullData = toArrays(splits);
  process.stderr.write(
    `${dataset}: ${held.length} of ${splits.train.length} train edges held out as new ` +
      `(seed ${seed}); budget ${budget} s per from-scratch run; work in ${work}\n`,
  );

  const plan = async (d: TrainingArrays) =>
    planTimeBudget(d, 'default', overrides, await graphSize(d), budget);
  const basePlan = await plan(baseData);
  const base = await timedRun('base', (onValidation) =>
    train(baseData, basePlan.config, {
      outDir: path.join(work, 'base'),
      ...budgetTrainOptions(basePlan),
      onProgress: (e) => e.kind === 'validation' && onValidation(e.epoch, e.metrics!.overall.mrr),
    }),
  );

  const fullPlan = await plan(fullData);
  const known = new Set(baseData.entities);
  const change = {
    addedEdges: held.length,
    removedEdges: 0,
    triples: fullData.train.length / 3 + fullData.valid.length / 3 + fullData.test.length / 3,
    newEntities: fullData.entities.filter((e) => !known.has(e)).length,
    newRelations: fullData.relations.filter((r) => !baseData.relations.includes(r)).length,
    entities: fullData.entities.length,
  };
  const warmPlan = warmStartSchedule(fullPlan.config, change, tuning)!;
  const warm = await timedRun('warm', (onValidation) =>
    train(fullData, warmPlan.config, {
      outDir: path.join(work, 'warm'),
      warmStartFrom: path.join(work, 'base'),
      timeLimitSeconds: fullPlan.trainingSeconds,
      onProgress: (e) => e.kind === 'validation' && onValidation(e.epoch, e.metrics!.overall.mrr),
    }),
  );
  const scratch = await timedRun('scratch', (onValidation) =>
    train(fullData, fullPlan.config, {
      outDir: path.join(work, 'scratch'),
      ...budgetTrainOptions(fullPlan),
      onProgress: (e) => e.kind === 'validation' && onValidation(e.epoch, e.metrics!.overall.mrr),
    }),
  );

  const target = (scratch.summary.valid?.overall.mrr ?? NaN) - WITHIN;
  const reached = warm.curve.find((p) => p.mrr >= target);
  const ratio = reached ? reached.seconds / scratch.summary.seconds : null;
  const result = {
    dataset,
    newShare,
    seed,
    budgetSeconds: budget,
    change,
    schedule: warmPlan.schedule,
    tuning,
    base: { seconds: base.summary.seconds, validMrr: base.summary.valid?.overall.mrr ?? null },
    scratch: {
      seconds: scratch.summary.seconds,
      epochs: scratch.summary.epochsRun,
      validMrr: scratch.summary.valid?.overall.mrr ?? null,
      curve: scratch.curve,
    },
    warm: {
      seconds: warm.summary.seconds,
      epochs: warm.summary.epochsRun,
      validMrr: warm.summary.valid?.overall.mrr ?? null,
      mapping: warm.summary.warmStart ?? null,
      curve: warm.curve,
    },
    warmSecondsToTarget: reached?.seconds ?? null,
    ratioToScratch: ratio,
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown' },
    ranAt: new Date().toISOString(),
  };
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(
    path.join(RESULTS, `warm-start-${dataset}.json`),
    JSON.stringify(result, null, 2) + '\n',
  );
  const mrr = (v: number | null | undefined) => (v == null ? 'n/a' : v.toFixed(4));
  console.log(`| run | epochs | seconds | valid MRR |`);
  console.log(`|---|---:|---:|---:|`);
  console.log(
    `| base (${100 - 100 * newShare}% of train) | ${base.summary.epochsRun} | ${base.summary.seconds.toFixed(1)} | ${mrr(result.base.validMrr)} |`,
  );
  console.log(
    `| from scratch | ${scratch.summary.epochsRun} | ${scratch.summary.seconds.toFixed(1)} | ${mrr(result.scratch.validMrr)} |`,
  );
  console.log(
    `| warm start | ${warm.summary.epochsRun} | ${warm.summary.seconds.toFixed(1)} | ${mrr(result.warm.validMrr)} |`,
  );
  console.log(
    reached
      ? `Warm start within ${WITHIN} of the from-scratch MRR (${mrr(target + WITHIN)}) after ` +
          `${reached.seconds.toFixed(1)} s (epoch ${reached.epoch}): ${(100 * ratio!).toFixed(1)}% ` +
          `of the from-scratch time (target <= 30%).`
      : `Warm start never got within ${WITHIN} of the from-scratch MRR (${mrr(target + WITHIN)}).`,
  );
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
