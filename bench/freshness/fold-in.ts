/**
 * Fold-in of new entities on an inductive split (issue 41's protocol; README.md here).
 *
 *   npx tsx bench/freshness/fold-in.ts [--data <dir>] --dataset FB15k-237 [--model <dir>]
 *     [--budget 10m] [--full-retrain [--full-model <dir>]] [--seed 1] [--steps N] [--lr X]
 *     [--candidates N] [--half validation|test] [--record]
 *
 * Trains on the reduced graph within --budget (or loads --model, trained on the same split:
 * same --seed), folds in every held-out entity in one burst, and ranks its test edges in both
 * directions; also head-side-only fold-in, single-entity latency, and with --full-retrain a
 * model trained on train + ingested edges within the same budget (or loaded: --full-model).
 * --half: one half of the held-out entities (fold-in-settings.ts chooses on `validation`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDurationSeconds } from '../../src/config';
import { readFoldIn } from '../../src/config/fold-in-config';
import { budgetTrainOptions, graphSize, planTimeBudget, train } from '../../src/model';
import { nativeEngine, type Native } from '../../src/model/native-engine';
import { datasetDir, takeDataOption } from '../datasets';
import { option } from '../quality/cli-option';
import { inductiveRanks, summarise, type RankSummary } from './inductive-ranks';
import { foldInEdges, percentile } from './fold-in-edges';
import { heldOutHalves, inductiveSplit, type Named } from './inductive-split';

/** Trains `train` (+ `valid`) within `budgetSeconds` into a temp folder; returns the model. */
async function trainWithin(
  name: string,
  train_: Named[],
  valid: Named[],
  budgetSeconds: number,
): Promise<{ model: Native.NeptuneModel; seconds: number; dir: string }> {
  const entities = [...new Set([...train_, ...valid].flatMap(([h, , t]) => [h, t]))].sort();
  const relations = [...new Set(train_.map(([, r]) => r))].sort();
  const [e, r] = [
    new Map(entities.map((x, i) => [x, i])),
    new Map(relations.map((x, i) => [x, i])),
  ];
  const flat = (ts: Named[]) =>
    Uint32Array.from(
      ts
        .filter(([, rel]) => r.has(rel))
        .flatMap(([h, rel, t]) => [e.get(h)!, r.get(rel)!, e.get(t)!]),
    );
  const data = { entities, relations, train: flat(train_), valid: flat(valid), test: flat(valid) };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `kgc-freshness-${name}-`));
  const plan = await planTimeBudget(data, 'default', {}, await graphSize(data), budgetSeconds);
  const started = Date.now();
  await train(data, plan.config, { outDir: dir, ...budgetTrainOptions(plan) });
  const seconds = (Date.now() - started) / 1000;
  return { model: await nativeEngine().loadModel(dir, 256 << 20), seconds, dir };
}

function row(label: string, s: { both: RankSummary; head: RankSummary; tail: RankSummary }) {
  const f = (x: number) => x.toFixed(4);
  return `| ${label} | ${f(s.both.mrr)} | ${f(s.both.hits10)} | ${f(s.head.mrr)} | ${f(s.tail.mrr)} |`;
}

async function scored(
  model: Native.NeptuneModel,
  test: Named[],
  heldOut: Set<string>,
  all: Named[],
) {
  const { asHead, asTail } = await inductiveRanks(model, test, heldOut, all);
  return {
    both: summarise([...asHead, ...asTail]),
    head: summarise(asHead),
    tail: summarise(asTail),
  };
}

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const name = option(rest, 'dataset') ?? 'FB15k-237';
  const seed = Number(option(rest, 'seed') ?? 1);
  const budget = parseDurationSeconds(option(rest, 'budget') ?? '10m');
  if (budget === undefined) throw new Error('--budget must be a duration such as 10m');
  const settings = {
    ...(option(rest, 'steps') ? { steps: Number(option(rest, 'steps')) } : {}),
    ...(option(rest, 'lr') ? { lr: Number(option(rest, 'lr')) } : {}),
    // The server's default unless asked (KGC_FOLD_IN_CANDIDATES).
    candidates: Number(option(rest, 'candidates') ?? readFoldIn({}).candidates),
    seed,
  };
  const split = inductiveSplit(datasetDir(name, data), seed);
  const half = option(rest, 'half');
  if (half !== undefined && half !== 'validation' && half !== 'test')
    throw new Error('--half must be validation or test');
  // One half of the held-out entities (heldOutHalves), or all of them.
  const heldOut = half ? heldOutHalves(split, seed)[half] : new Set(split.heldOut);
  const testEdges = split.test.filter(([h, , t]) => heldOut.has(h) || heldOut.has(t));
  console.log(
    `${name}: ${split.known.length} known, ${split.heldOut.length} held out; train ${split.train.length}, ` +
      `ingested ${split.ingested.length}, test edges ${split.test.length}`,
  );
  const modelDir = option(rest, 'model');
  const base = modelDir
    ? { model: await nativeEngine().loadModel(modelDir, 256 << 20), seconds: NaN }
    : await trainWithin('reduced', split.train, split.valid, budget);
  const model = base.model;
  const entities = foldInEdges(model, [...heldOut].sort(), split.ingested);
  const lists = entities.map(([, edges]) => edges);

  const t0 = process.hrtime.bigint();
  const rows = await model.foldInAsync(lists, settings);
  const burstSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const grown = model.withEntities(
    entities.map(([x]) => x),
    rows,
  );
  const folded = await scored(grown, testEdges, heldOut, split.all);
  const headOnlyRows = await model.foldInAsync(lists, { ...settings, tailSide: false });
  const headOnly = await scored(
    model.withEntities(
      entities.map(([x]) => x),
      headOnlyRows,
    ),
    testEdges,
    heldOut,
    split.all,
  );
  const none = await scored(model, testEdges, heldOut, split.all);

  const single: number[] = [];
  for (const edges of lists.slice(0, 200)) {
    const t = process.hrtime.bigint();
    await model.foldInAsync([edges], settings);
    single.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  single.sort((a, b) => a - b);

  const table = [
    `${name}, seed ${seed}, budget ${budget} s, fold-in ${JSON.stringify(settings)}, ` +
      `${half ? `${half} half of the held-out entities (${testEdges.length} test edges), ` : ''}` +
      `${os.cpus().length} cores (${os.cpus()[0]?.model})`,
    '',
    '| model | MRR | H@10 | MRR as head | MRR as tail |',
    '|---|---:|---:|---:|---:|',
    row('no fold-in (today)', none),
    row('fold-in, head side only', headOnly),
    row('fold-in (default)', folded),
  ];
  if (rest.includes('--full-retrain')) {
    const fullDir = option(rest, 'full-model');
    const full = fullDir
      ? { model: await nativeEngine().loadModel(fullDir, 256 << 20) }
      : await trainWithin('full', [...split.train, ...split.ingested], split.valid, budget);
    const retrained = await scored(full.model, testEdges, heldOut, split.all);
    table.push(row('full retrain, same budget', retrained));
    table.push(
      '',
      `fold-in / full retrain MRR: ${(folded.both.mrr / retrained.both.mrr).toFixed(3)}`,
    );
  }
  table.push(
    '',
    `burst: ${entities.length} entities folded in ${burstSeconds.toFixed(2)} s ` +
      `(${((1000 * burstSeconds) / Math.max(1, entities.length)).toFixed(2)} ms each)`,
    `one at a time (${single.length}): p50 ${percentile(single, 0.5).toFixed(2)} ms, ` +
      `p99 ${percentile(single, 0.99).toFixed(2)} ms`,
    `training of the reduced model: ${Number.isNaN(base.seconds) ? 'loaded' : `${base.seconds.toFixed(0)} s`}`,
  );
  console.log(table.join('\n'));
  if (rest.includes('--record')) {
    fs.appendFileSync(
      path.join(__dirname, 'RESULTS.md'),
      `\n## ${new Date().toISOString()}\n\n${table.join('\n')}\n`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
