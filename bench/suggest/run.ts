/**
 * Suggestions across the graph (issue 40): time the best N missing edges of every relation in
 * both directions of a dataset, and the peak memory against the model plus the N-per-relation
 * heaps. No Neo4j: the known edges are train + valid + test, read from the dataset's files, so
 * the number is the engine's and the job's own work (the job adds one stream of the graph). As
 * in the job, the known edges are handed to the engine once and each relation's lists are
 * streamed to a suggestions.bin (in a temporary directory, removed at the end).
 *
 *   npx tsx bench/suggest/run.ts [--data <dir>] [--dataset FB15k-237] [--model <dir>]
 *       [--epochs 20] [--n 1000] [--relations 0] [--untyped] [--model-alone]
 *
 * Without --model a model is trained on the dataset first (`--epochs`, the default preset; its
 * time is not part of the measurement). A model without types.json gets the types learned from
 * the train split (as `kgc evaluate --typed`), so candidates are type-consistent as after a
 * promotion; `--untyped` scores every entity instead. `--relations k` times only the first k relations.
 * A model folder with a combiner (rules as a second opinion) ranks by the served logit, as the
 * job does; `--model-alone` ranks by the model's logit alone. Prints a table and the machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { datasetDir, takeDataOption } from '../datasets';
import { describeMachine } from '../ingest/machine';
import { EdgeColumns } from '../../src/jobs/edge-columns';
import {
  loadServingModel,
  readDatasetArrays,
  resolveTrainingConfig,
  suggestionExclusions,
  suggestRelation,
  SuggestionsWriter,
  train,
  trainSplitTypes,
} from '../../src/model';

interface Args {
  dataset: string;
  model: string | undefined;
  epochs: number;
  n: number;
  relations: number;
  untyped: boolean;
  modelAlone: boolean;
}

function parseArgs(argv: string[]): Args {
  const { data, rest } = takeDataOption(argv);
  const value = (name: string) => {
    const i = rest.indexOf(name);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const model = value('--model');
  return {
    dataset: datasetDir(value('--dataset') ?? 'FB15k-237', data),
    model: model === undefined ? undefined : path.resolve(model),
    epochs: Number(value('--epochs') ?? 20),
    n: Number(value('--n') ?? 1000),
    relations: Number(value('--relations') ?? 0),
    untyped: rest.includes('--untyped'),
    modelAlone: rest.includes('--model-alone'),
  };
}

const MiB = 2 ** 20;
const rssMiB = () => process.memoryUsage().rss / MiB;
/** resourceUsage().maxRSS is in KiB. */
const peakMiB = () => process.resourceUsage().maxRSS / 1024;

function triples(dir: string): [string, string, string][] {
  return ['train.txt', 'valid.txt', 'test.txt'].flatMap((file) =>
    fs
      .readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.split('\t') as [string, string, string]),
  );
}

async function trainedModel(args: Args): Promise<string> {
  if (args.model) return args.model;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-suggest-'));
  console.error(`training ${args.epochs} epochs on ${args.dataset} into ${out} (not timed)`);
  await train({ dir: args.dataset }, resolveTrainingConfig('default', { epochs: args.epochs }), {
    outDir: out,
  });
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const modelDir = await trainedModel(args);
  const rssStart = rssMiB();
  const model = await loadServingModel(modelDir);
  const { scorer } = model;
  if (args.modelAlone) delete model.combiner;
  if (args.untyped) delete model.types;
  else if (!model.types) {
    const arrays = readDatasetArrays(args.dataset);
    const same = (a: readonly string[], b: readonly string[]) => a.join('\n') === b.join('\n');
    if (!same(arrays.entities, scorer.entities) || !same(arrays.relations, scorer.relations))
      throw new Error('the model vocabulary differs from the dataset: pass --untyped');
    model.types = trainSplitTypes(arrays);
  }
  const rssModel = rssMiB();
  const edges = new EdgeColumns();
  for (const [h, r, t] of triples(args.dataset)) {
    const [hi, ri, ti] = [scorer.findEntity(h), scorer.findRelation(r), scorer.findEntity(t)];
    if (hi !== undefined && ri !== undefined && ti !== undefined) edges.push(hi, ri, ti);
  }
  const known = edges.columns();
  const exclude = suggestionExclusions(scorer, known.heads, known.relations, known.tails);
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-suggest-out-'));
  const count =
    args.relations > 0
      ? Math.min(args.relations, scorer.relations.length)
      : scorer.relations.length;
  // RSS sampled while the suggestions run (maxRSS would keep the data preparation's peak).
  const rssLoopStart = rssMiB();
  let rssLoopPeak = rssLoopStart;
  const sampler = setInterval(() => {
    rssLoopPeak = Math.max(rssLoopPeak, rssMiB());
  }, 5);
  const started = process.hrtime.bigint();
  let slowest = { relation: '', seconds: 0 };
  const writer = new SuggestionsWriter(outDir);
  for (let r = 0; r < count; r++) {
    const t0 = process.hrtime.bigint();
    for (const list of await suggestRelation(model, r, exclude, args.n))
      writer.add(list, list.columns);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (seconds > slowest.seconds) slowest = { relation: scorer.relations[r] as string, seconds };
  }
  const kept = writer.rows;
  writer.finish({
    version: 'bench',
    createdAt: new Date().toISOString(),
    perRelation: args.n,
    entities: scorer.entities.length,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  fs.rmSync(outDir, { recursive: true, force: true });
  clearInterval(sampler);
  rssLoopPeak = Math.max(rssLoopPeak, rssMiB());
  const modelBytes = fs.statSync(path.join(modelDir, 'model.safetensors')).size;
  const threads = Number(process.env.RAYON_NUM_THREADS ?? os.cpus().length);
  // A heap entry is 12 bytes (query, candidate, logit); one heap of N per thread, plus the kept
  // rows (streamed to the file now, still counted as before so the ratio compares with earlier runs).
  const heapsMiB = (args.n * 12 * (threads + 2)) / MiB;
  const keptMiB = (kept * 12) / MiB;
  const rows: [string, string][] = [
    ['dataset', path.basename(args.dataset)],
    ['entities', String(scorer.entities.length)],
    ['relations timed (x 2 directions)', String(count)],
    ['N per relation and direction', String(args.n)],
    ['typed candidates', model.types ? 'yes' : 'no (no types.json)'],
    [
      'ranked by',
      model.combiner
        ? "the served logit (model + rules, the folder's combiner)"
        : `the model's logit${args.modelAlone ? ' (--model-alone)' : ' (no combiner)'}`,
    ],
    ['known edges held by the engine and for JS (8 bytes each, each)', String(exclude.engine.size)],
    ['suggestions kept', String(kept)],
    ['wall time, all relations (s)', seconds.toFixed(1)],
    ['slowest relation (s)', `${slowest.seconds.toFixed(2)} (${slowest.relation})`],
    ['model file (MiB)', (modelBytes / MiB).toFixed(1)],
    ['heaps, N x threads (MiB)', heapsMiB.toFixed(2)],
    ['RSS before load (MiB)', rssStart.toFixed(0)],
    ['RSS after load (MiB)', rssModel.toFixed(0)],
    ['peak RSS of the process, data preparation included (MiB)', peakMiB().toFixed(0)],
    ['kept rows, 12 bytes each (MiB)', keptMiB.toFixed(1)],
    ['RSS when the suggestions start (MiB)', rssLoopStart.toFixed(0)],
    ['peak RSS while they run (MiB)', rssLoopPeak.toFixed(0)],
    [
      'growth while they run / (model + heaps + kept rows)',
      ((rssLoopPeak - rssLoopStart) / (modelBytes / MiB + heapsMiB + keptMiB)).toFixed(2),
    ],
    [
      'peak while they run, over the runtime before load / (model + heaps + kept rows)',
      ((rssLoopPeak - rssStart) / (modelBytes / MiB + heapsMiB + keptMiB)).toFixed(2),
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log('| measure | value |\n|---|---|');
  for (const [k, v] of rows) console.log(`| ${k.padEnd(width)} | ${v} |`);
  console.log('\nmachine:');
  for (const [k, v] of Object.entries(describeMachine())) console.log(`  ${k}: ${v}`);
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
