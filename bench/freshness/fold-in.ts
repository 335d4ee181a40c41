/**
 * Fold-in of new entities on an inductive split (issue 41's protocol; README.md here).
 *
 *   npx tsx bench/freshness/fold-in.ts [--data <dir>] --dataset FB15k-237 [--model <dir>]
 *     [--budget 10m] [--full-retrain [--full-model <dir>]] [--seed 1] [--steps N] [--lr X]
 *     [--candidates N] [--pool N] [--half validation|test] [--default-only] [--canary-edges N]
 *     [--share F] [--canary-only] [--record]
 *
 * Trains on the reduced graph within --budget (or loads --model, trained on the same split:
 * same --seed), folds in every held-out entity in one burst, and ranks its test edges in both
 * directions; also head-side-only fold-in, single-entity latency, and with --full-retrain a
 * model trained on train + ingested edges within the same budget (or loaded: --full-model).
 * --half: one half of the held-out entities (fold-in-settings.ts chooses on `validation`).
 * --default-only: the server's design alone (without the earlier ones it is compared with);
 * --canary-edges: the canary's size (the server's CANARY_EDGES unless given).
 * --share: the fraction of entities held out (0.1 unless given).
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
import {
  bootstrapMrr,
  foldedTopShare,
  HARM_EDGES,
  knownMrr,
  modelIds,
  sample,
  versionGraph,
} from './known-harm';
import { NEGATIVE_POOL_SIZE, negativePool } from '../../src/model/fold-in/negative-pool';
import { FoldInCanary } from '../../src/model/fold-in/fold-in-canary';
import { CANARY_EDGES } from '../../src/model/fold-in/canary-file';
import { HARM_MARGIN_Z } from '../../src/model/fold-in/canary-harm';
import { Scorer } from '../../src/model/scorer';
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

interface Scored {
  both: RankSummary;
  head: RankSummary;
  tail: RankSummary;
  /** 95% bootstrap interval of `both` over held-out entities. */
  interval: [number, number];
}

async function scored(
  model: Native.NeptuneModel,
  test: Named[],
  heldOut: Set<string>,
  all: Named[],
  seed: number,
): Promise<Scored> {
  const { asHead, asTail, headOf, tailOf } = await inductiveRanks(model, test, heldOut, all);
  return {
    both: summarise([...asHead, ...asTail]),
    head: summarise(asHead),
    tail: summarise(asTail),
    interval: bootstrapMrr([...asHead, ...asTail], [...headOf, ...tailOf], seed),
  };
}

/** A fold-in design: what `foldInAsync` is given beyond the settings. */
interface Design {
  label: string;
  options: { tailSide?: boolean; negatives?: Native.FoldInNegatives };
}

/** One design's row: the new entities' ranks, the known edges after, the top-10 share. */
interface DesignResult {
  label: string;
  scored: Scored;
  knownAfter: number;
  share: { top10: number; entities: number };
  burstSeconds: number;
}

const f4 = (x: number) => x.toFixed(4);

function designRow(r: DesignResult, knownBefore: number): string {
  const s = r.scored;
  return (
    `| ${r.label} | ${f4(s.both.mrr)} | ${f4(s.interval[0])}-${f4(s.interval[1])} | ${f4(s.both.hits10)} ` +
    `| ${f4(s.head.mrr)} | ${f4(s.tail.mrr)} | ${f4(r.knownAfter)} | ${(r.knownAfter - knownBefore).toFixed(4)} ` +
    `| ${(100 * r.share.top10).toFixed(2)}% (${(100 * r.share.entities).toFixed(2)}%) | ${r.burstSeconds.toFixed(2)} |`
  );
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
  const share = Number(option(rest, 'share') ?? 0.1);
  if (!(share > 0 && share < 1)) throw new Error('--share must be a fraction between 0 and 1');
  const split = inductiveSplit(datasetDir(name, data), seed, share);
  const half = option(rest, 'half');
  if (half !== undefined && half !== 'validation' && half !== 'test')
    throw new Error('--half must be validation or test');
  // One half of the held-out entities (heldOutHalves), or all of them.
  const heldOut = half ? heldOutHalves(split, seed)[half] : new Set(split.heldOut);
  const testEdges = split.test.filter(([h, , t]) => heldOut.has(h) || heldOut.has(t));
  const harmEdges = sample(split.knownTest, HARM_EDGES, seed);
  console.log(
    `${name}: ${split.known.length} known, ${split.heldOut.length} held out (${share}); train ${split.train.length}, ` +
      `ingested ${split.ingested.length}, test edges ${split.test.length}, known-known test edges ` +
      `${split.knownTest.length} (${harmEdges.length} scored for the harm)`,
  );
  const modelDir = option(rest, 'model');
  const base = modelDir
    ? { model: await nativeEngine().loadModel(modelDir, 256 << 20), seconds: NaN, dir: modelDir }
    : await trainWithin('reduced', split.train, split.valid, budget);
  console.log(`reduced model: ${base.dir} (epoch ${base.model.epoch})`);
  const model = base.model;
  const graph = await versionGraph(model, split.train);
  const entities = foldInEdges(model, [...heldOut].sort(), split.ingested, graph);
  const lists = entities.map(([, edges]) => edges);
  const names = entities.map(([x]) => x);

  const reverse = (r: number) => model.reverseRelation(r);
  const poolSize = Number(option(rest, 'pool') ?? NEGATIVE_POOL_SIZE);
  const byRelation = await negativePool(graph, reverse, { size: poolSize });
  // --canary-only: the served design's canary alone (no comparison rows, no single-entity
  // timing): the quick rerun of a change to the canary on a saved --model.
  const canaryOnly = rest.includes('--canary-only');
  const oneStratum = canaryOnly
    ? undefined
    : await negativePool(graph, reverse, { size: poolSize, strata: 'one' });
  const designs: Design[] = [
    { label: 'head side only', options: { tailSide: false } },
    { label: 'uniform pairs, weighted as its own queries (before)', options: {} },
    { label: 'known queries, one stratum, training weight', options: { negatives: oneStratum } },
    {
      label: 'known queries by relation, training weight (default)',
      options: { negatives: byRelation },
    },
  ].slice(rest.includes('--default-only') || canaryOnly ? -1 : 0);
  const knownBefore = await knownMrr(model, harmEdges, split.all);
  const unanswered = canaryOnly
    ? undefined
    : await scored(model, testEdges, heldOut, split.all, seed);
  const results: DesignResult[] = [];
  for (const design of canaryOnly ? [] : designs) {
    const t0 = process.hrtime.bigint();
    const rows = await model.foldInAsync(lists, { ...settings, ...design.options });
    const burstSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const grown = model.withEntities(names, rows);
    results.push({
      label: design.label,
      scored: await scored(grown, testEdges, heldOut, split.all, seed),
      knownAfter: await knownMrr(grown, harmEdges, split.all),
      share: foldedTopShare(grown, model.entities.length, harmEdges, split.all),
      burstSeconds,
    });
    console.log(designRow(results.at(-1)!, knownBefore));
  }
  const chosen = designs.at(-1)!;

  // The server's canary (fold-in-canary.ts) on held-out known edges (valid: disjoint from the
  // harm's test edges): what is served once it holds back the entities that harm them.
  const scorer = Scorer.load(base.dir);
  const canaryEdges = sample(
    split.valid,
    Number(option(rest, 'canary-edges') ?? CANARY_EDGES),
    seed + 1,
  );
  const canary = (await FoldInCanary.build(scorer, modelIds(model, canaryEdges), graph))!;
  const maxHarm = readFoldIn({}).maxHarm;
  const burstStart = process.hrtime.bigint();
  const chosenRows = await model.foldInAsync(lists, { ...settings, ...chosen.options });
  const d = chosenRows.length / Math.max(1, lists.length);
  const candidates = lists.map((edges, i) => ({
    row: chosenRows.subarray(i * d, (i + 1) * d),
    edges,
  }));
  const foldSeconds = Number(process.hrtime.bigint() - burstStart) / 1e9;
  let canaryBurstSeconds = NaN;
  // The estimate alone (z 0), for comparison, then what is served: the canary with its margin
  // of HARM_MARGIN_Z standard errors (the last row; the burst: the fold-in and this canary).
  for (const z of canaryOnly ? [HARM_MARGIN_Z] : [0, HARM_MARGIN_Z]) {
    const admitStart = process.hrtime.bigint();
    const verdict = await canary.admit([], candidates, maxHarm, z);
    if (z === HARM_MARGIN_Z)
      canaryBurstSeconds = foldSeconds + Number(process.hrtime.bigint() - admitStart) / 1e9;
    const admittedNames = verdict.admitted.map((i) => names[i]!);
    const admittedRows = new Float32Array(verdict.admitted.length * d);
    verdict.admitted.forEach((i, k) => admittedRows.set(candidates[i]!.row, k * d));
    const guarded = model.withEntities(admittedNames, admittedRows);
    results.push({
      label: `default with the canary, margin ${z} standard errors (${canaryEdges.length} edges, KGC_FOLD_IN_MAX_HARM ${maxHarm}: ${admittedNames.length} of ${names.length} served; its check half: ${f4(verdict.before)} to ${f4(verdict.after)}, error ${f4(verdict.standardError)})`,
      scored: await scored(guarded, testEdges, heldOut, split.all, seed),
      knownAfter: await knownMrr(guarded, harmEdges, split.all),
      share: foldedTopShare(guarded, model.entities.length, harmEdges, split.all),
      burstSeconds: z === HARM_MARGIN_Z ? canaryBurstSeconds : NaN,
    });
    console.log(designRow(results.at(-1)!, knownBefore));
  }

  const single: number[] = [];
  for (const edges of lists.slice(0, canaryOnly ? 0 : 200)) {
    const t = process.hrtime.bigint();
    const row = await model.foldInAsync([edges], { ...settings, ...chosen.options });
    await canary.admit([], [{ row, edges }], maxHarm);
    single.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  single.sort((a, b) => a - b);

  const table = [
    `${name}, seed ${seed}, budget ${budget} s, fold-in ${JSON.stringify(settings)}, ` +
      `${half ? `${half} half of the held-out entities (${testEdges.length} test edges), ` : ''}` +
      `${os.cpus().length} cores (${os.cpus()[0]?.model}); negative pools: ${byRelation?.heads.length} ` +
      `queries by relation, ${oneStratum?.heads.length} in one stratum`,
    '',
    `New entities' test edges (MRR with a 95% bootstrap interval over entities, H@10, each side); ` +
      `the known entities' test edges (${harmEdges.length}, both directions) after the fold-in and ` +
      `the change from before it (${f4(knownBefore)}); the folded entities' share of those ` +
      `queries' top 10 (their share of all entities); the burst's time.`,
    '',
    '| fold-in | MRR | 95% interval | H@10 | MRR as head | MRR as tail | known edges MRR | harm | folded share of top 10 | burst s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...(unanswered
      ? [
          `| none (ENTITY_NOT_IN_MODEL) | ${f4(unanswered.both.mrr)} | - | ${f4(unanswered.both.hits10)} | ${f4(unanswered.head.mrr)} | ${f4(unanswered.tail.mrr)} | ${f4(knownBefore)} | 0 | 0 | - |`,
        ]
      : []),
    ...results.map((r) => designRow(r, knownBefore)),
  ];
  if (rest.includes('--full-retrain')) {
    const fullDir = option(rest, 'full-model');
    const full = fullDir
      ? { model: await nativeEngine().loadModel(fullDir, 256 << 20), dir: fullDir }
      : await trainWithin('full', [...split.train, ...split.ingested], split.valid, budget);
    const retrained = await scored(full.model, testEdges, heldOut, split.all, seed);
    const knownFull = await knownMrr(full.model, harmEdges, split.all);
    // What the server serves: the default with its canary.
    const folded = results.at(-1)!;
    const lower = Math.min(knownBefore, knownFull);
    table.push(
      `| full retrain (${full.dir}, epoch ${full.model.epoch}) | ${f4(retrained.both.mrr)} | ` +
        `${f4(retrained.interval[0])}-${f4(retrained.interval[1])} | ${f4(retrained.both.hits10)} | ` +
        `${f4(retrained.head.mrr)} | ${f4(retrained.tail.mrr)} | ${f4(knownFull)} | ` +
        `${(knownFull - knownBefore).toFixed(4)} | - | - |`,
      '',
      'Targets (what is served, the default with the canary, against the full retrain):',
      `- harm: known edges ${f4(folded.knownAfter)} >= min(before ${f4(knownBefore)}, full ${f4(knownFull)}) - .01 = ${f4(lower - 0.01)}: ${folded.knownAfter >= lower - 0.01 ? 'pass' : 'FAIL'}`,
      `- as head ${(folded.scored.head.mrr / retrained.head.mrr).toFixed(3)} of the full retrain's (>= .85): ${folded.scored.head.mrr >= 0.85 * retrained.head.mrr ? 'pass' : 'FAIL'}`,
      `- as tail ${(folded.scored.tail.mrr / retrained.tail.mrr).toFixed(3)} (.85-1.15): ${Math.abs(folded.scored.tail.mrr / retrained.tail.mrr - 1) <= 0.15 ? 'pass' : 'FAIL'}`,
      `- overall ${(folded.scored.both.mrr / retrained.both.mrr).toFixed(3)} (>= .85): ${folded.scored.both.mrr >= 0.85 * retrained.both.mrr ? 'pass' : 'FAIL'}`,
    );
  }
  table.push(
    '',
    `burst (default, canary included): ${entities.length} entities folded in ${canaryBurstSeconds.toFixed(2)} s`,
    `one at a time (${single.length}, default, canary included): p50 ${percentile(single, 0.5).toFixed(2)} ms, ` +
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
