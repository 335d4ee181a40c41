/**
 * What a graph costs on one machine, step by step, per size, and FB15k-237 beside them (issue 42):
 * load (`kgc ingest --bulk`'s code into a fresh local Neo4j), export (every edge to dense ids, the
 * retraining job's first step, right after the load), train (timed batches of the default through
 * the engine's CLI, extrapolated to an epoch, and the peak RSS), evaluate (filtered ranks of a
 * seeded sample of test triples, both directions), serve (exact top-10 of one query at a time
 * through the binding `kgc serve` uses, model loaded and warmed up as it does) and the saved
 * model's size.
 *
 *   npx tsx bench/scale/summary.ts [--sizes 1000000,10000000] [--data <datasets>]
 *       [--batches 200] [--eval-triples 1000] [--queries 200] [--heap 2g] [--pagecache 2g]
 *
 * `--sizes` are edge counts of generated graphs (entities a tenth, bench/scale/scale-graph.ts);
 * FB15k-237 comes from `--data` (or KGC_DATASETS) when it has it. The trained model has seen
 * `--batches` batches only: its quality is not the point, its costs are. Run it alone.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bulkIngest, type BulkIngestSummary } from '../../src/ingest/bulk';
import { Scorer } from '../../src/model/scorer';
import { describeMachine } from '../ingest/machine';
import {
  CLIENT,
  log,
  MIGRATIONS,
  onFreshServer,
  timeExports,
  type ExportRun,
} from './fresh-server';
import { NEPTUNE, probe, type Probe } from './train-probe';
import { writeScaleGraph } from './write-scale-graph';

interface GraphCase {
  name: string;
  dir: string;
  labels?: string;
}

interface Evaluation {
  queries: number;
  seconds: number;
}

interface Serving {
  loadSeconds: number;
  p50Ms: number;
  p99Ms: number;
}

interface Row {
  graph: GraphCase;
  triples: number;
  load: BulkIngestSummary;
  exported: ExportRun;
  train: Probe;
  evaluation: Evaluation;
  serving: Serving;
  modelMiB: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000000,10000000' },
      data: { type: 'string', default: process.env.KGC_DATASETS },
      batches: { type: 'string', default: '200' },
      'eval-triples': { type: 'string', default: '1000' },
      queries: { type: 'string', default: '200' },
      heap: { type: 'string', default: '2g' },
      pagecache: { type: 'string', default: '2g' },
      seed: { type: 'string', default: '1' },
    },
  });
  const machine = describeMachine();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-summary-'));
  const settings = { work, heap: values.heap, pageCache: values.pagecache };
  const rows: Row[] = [];
  try {
    const cases: GraphCase[] = [];
    const fb = values.data ? path.join(values.data, 'FB15k-237') : undefined;
    if (fb && fs.existsSync(path.join(fb, 'train.txt'))) cases.push({ name: 'FB15k-237', dir: fb });
    for (const edges of values.sizes.split(',').map(Number)) {
      const entities = Math.round(edges / 10);
      const dir = path.join(work, `graph-${edges}`);
      const graph = writeScaleGraph(dir, { entities, edges, seed: Number(values.seed) });
      log(`generated ${edges} triples over ${entities} entities in ${graph.seconds.toFixed(1)} s`);
      cases.push({ name: `generated ${entities / 1000}k entities`, dir, labels: graph.labels });
    }
    for (const graph of cases) {
      rows.push(
        await measure(graph, settings, {
          batches: Number(values.batches),
          evalTriples: Number(values['eval-triples']),
          queries: Number(values.queries),
        }),
      );
      report(rows);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(
    `\nmachine:\n${Object.entries(machine)
      .map(([k, v]) => `  ${k}: ${v}`)
      .join('\n')}\n`,
  );
}

async function measure(
  graph: GraphCase,
  settings: { work: string; heap: string; pageCache: string },
  options: { batches: number; evalTriples: number; queries: number },
): Promise<Row> {
  const files = ['train', 'valid', 'test'].map((s) => path.join(graph.dir, `${s}.txt`));
  const serverName = graph.name.replace(/\W+/g, '-');
  let exported: ExportRun | undefined;
  const load = await onFreshServer(serverName, settings, async (server) => {
    const summary = await bulkIngest(server, {
      files,
      ...(graph.labels ? { labels: graph.labels } : {}),
      migrationsDir: MIGRATIONS,
      client: CLIENT,
    });
    exported = (await timeExports(server, 1))[0];
    return summary;
  });
  fs.rmSync(path.join(settings.work, serverName), { recursive: true, force: true });
  log(`${graph.name}: loaded in ${load.seconds.toFixed(1)} s`);
  const modelDir = path.join(settings.work, `model-${serverName}`);
  const train = probe(graph.dir, options.batches, undefined, modelDir);
  log(`${graph.name}: ${train.msPerBatch.toFixed(1)} ms/batch`);
  const evaluation = evaluate(modelDir, graph.dir, options.evalTriples);
  const serving = serve(modelDir, options.queries);
  const modelMiB = directoryBytes(modelDir) / 2 ** 20;
  fs.rmSync(modelDir, { recursive: true, force: true });
  return {
    graph,
    triples: load.triples,
    load,
    exported: exported as ExportRun,
    train,
    evaluation,
    serving,
    modelMiB,
  };
}

/** `neptune eval --max-triples`: the test split's line (its queries count both directions). */
function evaluate(model: string, dataset: string, maxTriples: number): Evaluation {
  const args = [
    'eval',
    '--model',
    model,
    '--dataset',
    dataset,
    '--max-triples',
    String(maxTriples),
  ];
  const run = spawnSync(NEPTUNE, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`neptune ${args.join(' ')} failed:\n${run.stderr}`);
  const line = /^test: .*\((\d+) queries in ([\d.]+)s\)$/m.exec(run.stdout);
  if (!line) throw new Error(`no test line in:\n${run.stdout}`);
  return { queries: Number(line[1]), seconds: Number(line[2]) };
}

/** Load and warm-up as `kgc serve` does, then top-10 tail queries one at a time (seeded). */
function serve(model: string, queries: number): Serving {
  const started = process.hrtime.bigint();
  const scorer = Scorer.load(model);
  const loadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const entities = scorer.entities.length;
  const relations = scorer.relations.length;
  let state = 12345;
  const next = (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const times: number[] = [];
  for (let i = 0; i < queries + 10; i++) {
    const from = process.hrtime.bigint();
    scorer.topK(next(entities), next(relations), 10);
    if (i >= 10) times.push(Number(process.hrtime.bigint() - from) / 1e6);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
  return { loadSeconds, p50Ms: at(0.5), p99Ms: at(0.99) };
}

function directoryBytes(dir: string): number {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .reduce(
      (sum, entry) =>
        sum +
        (entry.isDirectory()
          ? directoryBytes(path.join(dir, entry.name))
          : fs.statSync(path.join(dir, entry.name)).size),
      0,
    );
}

function report(rows: Row[]): void {
  const n = (x: number) => Math.round(x).toLocaleString('en');
  const lines = [
    '',
    '| graph | entities | edges | load s (edges/s) | export s (edges/s) | train s/epoch (ms/batch, scoring) | train peak RSS MiB | evaluate ms/query (queries) | serve load s | serve top-10 p50 / p99 ms | model MiB |',
    '|---|---:|---:|---|---|---|---:|---|---:|---|---:|',
    ...rows.map((r) => {
      const k = r.train.config.sampled_candidates;
      return (
        `| ${r.graph.name} | ${n(r.train.entities)} | ${n(r.triples)} | ` +
        `${r.load.seconds.toFixed(1)} (${n(r.triples / r.load.seconds)}) | ` +
        `${r.exported.seconds.toFixed(1)} (${n(r.exported.edges / r.exported.seconds)}) | ` +
        `${n(r.train.epochSeconds)} (${r.train.msPerBatch.toFixed(1)}, ${k > 0 ? `tails + ${k}` : 'every entity'}) | ` +
        `${n(r.train.peakMiB)} | ` +
        `${((1000 * r.evaluation.seconds) / r.evaluation.queries).toFixed(2)} (${n(r.evaluation.queries)}) | ` +
        `${r.serving.loadSeconds.toFixed(2)} | ${r.serving.p50Ms.toFixed(2)} / ${r.serving.p99Ms.toFixed(2)} | ` +
        `${n(r.modelMiB)} |`
      );
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
