/**
 * Type-consistent candidates (issue 38, item 3): how many top-10 suggestions lie outside the
 * relation's range with `typed` off and on, and filtered MRR typed against untyped.
 *
 *   npx tsx bench/trust/types.ts [--data <dir>] [--model <dir> | --models <root>] [--queries N] [NAME...]
 *   npx tsx bench/trust/types.ts --select [--data <dir>] [NAME...]
 *
 * NAME defaults to NELL-995 FB15k-237 WN18RR, read from <data>/<NAME> (`--data`, else
 * KGC_DATASETS, else ../shared/datasets). Each model is `--model <dir>` (one NAME only) or
 * <root>/<NAME> (`--models <root>`, default /work/bench-models), trained by `kgc train --dataset` on that folder.
 * - NELL-995: entity ids are `concept_<category>_<name>`; the category is the entity's label.
 *   Ranges come from the labels of the train split's tails (heads for the domain).
 * - FB15k-237, WN18RR: no labels; ranges come from the graph's structure (DEFAULT_STRUCTURE).
 * Columns: `out10 off/on` share of top-10 suggestions (test queries, known answers filtered as
 * serving filters them) outside the range without / with `typed`; `MRR` filtered test MRR
 * untyped, typed (true answer always ranked: `kgc evaluate --typed`) and typed-strict (an answer
 * outside its range counts as a miss); `in range` share of true test answers in their range;
 * `range` mean share of the entities a range holds.
 *
 * --select chooses the structural rule: for every measure and threshold, validation MRR of
 * typed-strict ranking with structure alone (labels ignored), per graph and averaged; the best
 * mean is the default to put in src/model/types/learn-types.ts (DEFAULT_STRUCTURE). Models of
 * the same names are needed; the family's graphs (bench/quality/family.ts) work as NAMEs given
 * as folders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DEFAULT_STRUCTURE,
  evaluate,
  evaluateTyped,
  readDatasetArrays,
  Scorer,
  trainSplitTypes,
  type ServingTypes,
  type StructureSettings,
  type TrainingArrays,
} from '../../src/model';

const DEFAULT_NAMES = ['NELL-995', 'FB15k-237', 'WN18RR'];
const MODELS_ROOT = '/work/bench-models';
const MEASURES = ['jaccard', 'containment'] as const;
const THRESHOLDS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01];

interface Options {
  data: string;
  model?: string;
  models: string;
  queries: number;
  select: boolean;
  names: string[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    data: process.env.KGC_DATASETS ?? path.resolve('../shared/datasets'),
    models: MODELS_ROOT,
    queries: 2000,
    select: false,
    names: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--data') options.data = value();
    else if (arg === '--model') options.model = value();
    else if (arg === '--models') options.models = value();
    else if (arg === '--queries') options.queries = Number(value());
    else if (arg === '--select') options.select = true;
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else options.names.push(arg);
  }
  if (options.names.length === 0) options.names = DEFAULT_NAMES;
  if (options.model && options.names.length !== 1)
    throw new Error('--model needs exactly one NAME');
  return options;
}

const datasetOf = (o: Options, name: string) =>
  fs.existsSync(name) ? path.resolve(name) : path.join(o.data, name);
const modelOf = (o: Options, name: string) =>
  o.model ? path.resolve(o.model) : path.join(o.models, path.basename(name));

/** NELL's `concept_<category>_<name>` ids carry their category: the entity's label. */
export function nellLabels(entities: readonly string[]): Map<string, string[]> {
  const labels = new Map<string, string[]>();
  for (const id of entities) {
    const match = /^concept_([^_]+)_/.exec(id);
    if (match) labels.set(id, [match[1] as string]);
  }
  return labels;
}

/** Known answers of every (entity, relation, direction) over the three splits. */
function knownAnswers(data: TrainingArrays): Map<string, number[]> {
  const known = new Map<string, number[]>();
  const add = (key: string, e: number) => (known.get(key) ?? known.set(key, []).get(key))?.push(e);
  for (const split of [data.train, data.valid, data.test]) {
    for (let i = 0; i < split.length; i += 3) {
      const [h, r, t] = [split[i], split[i + 1], split[i + 2]] as [number, number, number];
      add(`${h} ${r} tail`, t);
      add(`${t} ${r} head`, h);
    }
  }
  return known;
}

/** Share of top-10 suggestions outside the range, for up to `limit` test queries. */
async function outsideTop10(
  modelDir: string,
  data: TrainingArrays,
  types: ServingTypes,
  typed: boolean,
  limit: number,
): Promise<number> {
  const scorer = Scorer.load(modelDir);
  const known = knownAnswers(data);
  const queries: { entity: number; relation: number; direction: 'tail' | 'head' }[] = [];
  for (let i = 0; i < data.test.length && queries.length < limit; i += 3) {
    const [h, r, t] = [data.test[i], data.test[i + 1], data.test[i + 2]] as number[];
    queries.push({ entity: h as number, relation: r as number, direction: 'tail' });
    queries.push({ entity: t as number, relation: r as number, direction: 'head' });
  }
  let outside = 0;
  let shown = 0;
  for (let start = 0; start < queries.length; start += 256) {
    const batch = queries.slice(start, start + 256);
    const excludes = batch.map((q) => {
      const own = [q.entity, ...(known.get(`${q.entity} ${q.relation} ${q.direction}`) ?? [])];
      return typed ? [...types.outOfRange(q.relation, q.direction), ...own] : own;
    });
    const tops = await scorer.topKBatchAsync(batch, 10, excludes);
    tops.forEach((top, j) => {
      const q = batch[j] as (typeof batch)[number];
      for (const row of top) {
        shown += 1;
        if (!types.isConsistent(q.relation, q.direction, row.index)) outside += 1;
      }
    });
  }
  return shown > 0 ? outside / shown : 0;
}

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
const f3 = (x: number) => x.toFixed(4);

async function report(o: Options): Promise<void> {
  const rows: string[][] = [];
  for (const name of o.names) {
    const data = readDatasetArrays(datasetOf(o, name));
    const modelDir = modelOf(o, name);
    const labels = /NELL/i.test(name) ? nellLabels(data.entities) : undefined;
    const types = trainSplitTypes(data, labels);
    const untyped = await evaluate(modelDir, data, 'test');
    const typed = await evaluateTyped(modelDir, data, 'test', { labels });
    const strict = await evaluateTyped(modelDir, data, 'test', { labels, missOutside: true });
    const off = await outsideTop10(modelDir, data, types, false, o.queries);
    const on = await outsideTop10(modelDir, data, types, true, o.queries);
    rows.push([
      path.basename(name),
      labels ? 'labels' : 'structure',
      `${pct(off)} / ${pct(on)}`,
      `${f3(untyped.overall.mrr)} / ${f3(typed.metrics.overall.mrr)} / ${f3(strict.metrics.overall.mrr)}`,
      pct(typed.answersInRange),
      pct(typed.meanRangeShare),
    ]);
  }
  printTable(
    ['graph', 'types', 'out10 off / on', 'MRR untyped / typed / strict', 'in range', 'range'],
    rows,
  );
}

async function select(o: Options): Promise<void> {
  const settings: StructureSettings[] = MEASURES.flatMap((measure) =>
    THRESHOLDS.map((threshold) => ({ measure, threshold })),
  );
  const scores = new Map<string, number[]>();
  const rows: string[][] = [];
  for (const name of o.names) {
    const data = readDatasetArrays(datasetOf(o, name));
    const modelDir = modelOf(o, name);
    const base = (await evaluate(modelDir, data, 'valid')).overall.mrr;
    for (const structure of settings) {
      const key = `${structure.measure} >= ${structure.threshold}`;
      const run = await evaluateTyped(modelDir, data, 'valid', { structure, missOutside: true });
      (scores.get(key) ?? scores.set(key, []).get(key))?.push(run.metrics.overall.mrr);
      rows.push([
        path.basename(name),
        key,
        f3(base),
        f3(run.metrics.overall.mrr),
        pct(run.answersInRange),
        pct(run.meanRangeShare),
      ]);
    }
  }
  printTable(['graph', 'rule', 'valid MRR untyped', 'typed strict', 'in range', 'range'], rows);
  const mean = [...scores].map(
    ([key, v]) => [key, v.reduce((a, b) => a + b, 0) / v.length] as const,
  );
  mean.sort((a, b) => b[1] - a[1]);
  console.log(`\nmean typed-strict valid MRR over ${o.names.length} graph(s), best first:`);
  for (const [key, value] of mean) console.log(`  ${key}: ${f3(value)}`);
  console.log(
    `current default: ${DEFAULT_STRUCTURE.measure} >= ${DEFAULT_STRUCTURE.threshold}; best: ${mean[0]?.[0]}`,
  );
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log(
    `\nmachine: ${os.cpus()[0]?.model ?? 'unknown'} x ${os.cpus().length}, node ${process.version}`,
  );
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  await (o.select ? select(o) : report(o));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
