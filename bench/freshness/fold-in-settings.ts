/**
 * Fold-in settings judged on validation entities (issue 41: fewer steps for the latency
 * targets, without choosing them on the edges that report the MRR).
 *
 *   npx tsx bench/freshness/fold-in-settings.ts [--data <dir>] --dataset FB15k-237 --model <dir>
 *     [--seed 1] [--steps 10,20,40] [--lr 0.05,0.1] [--candidates 1024] [--latency 100]
 *     [--record]
 *
 * `--model`: the reduced model of fold-in.ts's split (same dataset and --seed). The held-out
 * entities are halved (`heldOutHalves`); every setting folds in the validation half in one
 * burst and ranks their test edges both ways (as fold-in.ts does). `fold-in.ts --half test`
 * then reports the chosen setting on the other half.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeEngine, type Native } from '../../src/model/native-engine';
import { datasetDir, takeDataOption } from '../datasets';
import { option } from '../quality/cli-option';
import { foldInEdges, percentile } from './fold-in-edges';
import { versionGraph } from './known-harm';
import { inductiveRanks, summarise } from './inductive-ranks';
import { heldOutHalves, inductiveSplit } from './inductive-split';

const list = (text: string | undefined, fallback: number[]) =>
  text === undefined ? fallback : text.split(',').map(Number);

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const name = option(rest, 'dataset') ?? 'FB15k-237';
  const seed = Number(option(rest, 'seed') ?? 1);
  const modelDir = option(rest, 'model');
  if (!modelDir) throw new Error('--model <dir>: the reduced model of fold-in.ts for this split');
  const split = inductiveSplit(datasetDir(name, data), seed);
  const { validation } = heldOutHalves(split, seed);
  const test = split.test.filter(([h, , t]) => validation.has(h) || validation.has(t));
  const model = await nativeEngine().loadModel(modelDir, 256 << 20);
  const graph = await versionGraph(model, split.train);
  const entities = foldInEdges(model, [...validation].sort(), split.ingested, graph);
  const names = entities.map(([x]) => x);
  const lists = entities.map(([, edges]) => edges);
  const latency = Number(option(rest, 'latency') ?? 0);

  const header = [
    `${name}, seed ${seed}, ${entities.length} validation entities (${test.length} test edges), ` +
      `${os.cpus().length} cores (${os.cpus()[0]?.model})`,
    '',
    '| steps | lr | candidates | validation MRR | H@10 | burst ms/entity | one p50 / p99 ms |',
    '|---:|---:|---:|---:|---:|---:|---:|',
  ];
  console.log(header.join('\n'));
  const rows: string[] = [];
  for (const steps of list(option(rest, 'steps'), [10, 20, 40]))
    for (const lr of list(option(rest, 'lr'), [0.05]))
      for (const candidates of list(option(rest, 'candidates'), [1024])) {
        const settings = { steps, lr, candidates, seed };
        const t0 = process.hrtime.bigint();
        const fitted = await model.foldInAsync(lists, settings);
        const burst = Number(process.hrtime.bigint() - t0) / 1e6 / Math.max(1, lists.length);
        const grown = model.withEntities(names, fitted);
        const ranks = await inductiveRanks(grown, test, validation, split.all);
        const s = summarise([...ranks.asHead, ...ranks.asTail]);
        const single = await oneAtATime(model, lists.slice(0, latency), settings);
        const line =
          `| ${steps} | ${lr} | ${candidates} | ${s.mrr.toFixed(4)} | ${s.hits10.toFixed(4)} | ` +
          `${burst.toFixed(2)} | ${single} |`;
        console.log(line);
        rows.push(line);
      }
  if (rest.includes('--record')) {
    fs.appendFileSync(
      path.join(__dirname, 'RESULTS.md'),
      `\n## Settings on validation entities, ${new Date().toISOString()}\n\n` +
        `${[...header, ...rows].join('\n')}\n`,
    );
  }
}

/** p50 / p99 of folding in each entity alone ('-' when not asked for). */
async function oneAtATime(
  model: Native.NeptuneModel,
  lists: Native.FoldInEdge[][],
  settings: Native.FoldInOptions,
): Promise<string> {
  if (lists.length === 0) return '-';
  const times: number[] = [];
  for (const edges of lists) {
    const t = process.hrtime.bigint();
    await model.foldInAsync([edges], settings);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return `${percentile(times, 0.5).toFixed(1)} / ${percentile(times, 0.99).toFixed(1)}`;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
