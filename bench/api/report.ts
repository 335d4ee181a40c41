import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/repo-root';
import type { BenchArgs } from './harness/cli-args';
import type { LoadResult } from './harness/load';
import type { Breakdown } from './harness/prom';
import type { ReadFloor } from './harness/read-floor';
import type { WorstRequestResult } from './harness/worst-request';

export interface Step {
  name: string;
  /** The GraphQL operation label of the server's metrics. */
  operation: string;
  load: Omit<LoadResult, 'samples'>;
  breakdown: Breakdown;
}

export type WarmupStep = Omit<LoadResult, 'samples'> & { name: string; at: string };

export interface Target {
  name: string;
  measured: string;
  pass: boolean;
}

export interface ApiBenchResult {
  kind: 'smoke' | 'full';
  date: string;
  args: BenchArgs;
  machine: Record<string, string>;
  dataset: { dir: string; triplesInGraph: number; pairs: number };
  model: { preset: string; config: unknown; epochs: number; epochSeconds: number };
  batchSize: number;
  warmup: WarmupStep[];
  steps: Step[];
  /** Neo4j reads one at a time from the bench process: the transaction's floor. */
  readFloor: ReadFloor[];
  targets: Target[];
  /** The costliest requests the limits allow, one at a time, with /healthz probed meanwhile. */
  worst?: WorstRequestResult[];
  /** Error lines in the server's log over the whole run, warm-up included. */
  serverLogErrors: { counts: Record<string, number>; first: string | null };
}

const find = (r: ApiBenchResult, name: string) => r.steps.find((s) => s.name === name);
const best = (r: ApiBenchResult, prefix: string) =>
  Math.max(
    0,
    ...r.steps
      .filter((s) => /c\d+$/.test(s.name) && s.name.startsWith(prefix))
      .map((s) => s.load.rps),
  );

/** The issue's three targets, judged on this run's own numbers. */
export function evaluateTargets(r: ApiBenchResult): Target[] {
  const targets: Target[] = [];
  const steady = r.steps.find((s) => s.name.includes('overallRate'));
  if (steady) {
    targets.push({
      name: 'missingLinks p99 < 20 ms at a steady 200 req/s (autocannon overallRate), zero errors',
      measured: `p99 ${steady.load.p99.toFixed(2)} ms, ${steady.load.errors} errors, ${steady.load.rps.toFixed(0)} req/s achieved`,
      pass: steady.load.p99 < 20 && steady.load.errors === 0,
    });
  }
  const paced = r.steps.find((s) => s.name.includes('even pacing'));
  if (paced) {
    targets.push({
      name: '(same target, evenly paced open-loop 200 req/s)',
      measured: `p99 ${paced.load.p99.toFixed(2)} ms, ${paced.load.errors} errors`,
      pass: paced.load.p99 < 20 && paced.load.errors === 0,
    });
  }
  const reasons = r.steps.find((s) => s.name.startsWith('missingLinks with reasons'));
  if (reasons) {
    targets.push({
      name: 'missingLinks with reasons p99 < 50 ms at 50 req/s (evenly paced), zero errors (issue 38)',
      measured: `p50 ${reasons.load.p50.toFixed(2)} ms, p99 ${reasons.load.p99.toFixed(2)} ms, ${reasons.load.errors} errors`,
      pass: reasons.load.p99 < 50 && reasons.load.errors === 0,
    });
  }
  const links = best(r, 'missingLinks c');
  const trivial = best(r, '__typename c');
  if (links > 0 && trivial > 0) {
    targets.push({
      name: 'saturated missingLinks req/s >= 1/6 of __typename req/s (best concurrency of each)',
      measured: `${links.toFixed(0)} / ${trivial.toFixed(0)} = 1/${(trivial / links).toFixed(2)}`,
      pass: links / trivial >= 1 / 6,
    });
  }
  const single = find(r, 'missingLinks c1');
  const batch = find(r, `missingLinksBatch ${r.batchSize} c1`);
  if (single && batch) {
    const perQuery = batch.load.p50 / r.batchSize;
    targets.push({
      name: `missingLinksBatch per-query cost < 1/5 of a single query's (p50 at c1, batch p50 / ${r.batchSize})`,
      measured: `${perQuery.toFixed(3)} ms vs ${single.load.p50.toFixed(2)} ms = 1/${(single.load.p50 / perQuery).toFixed(1)}`,
      pass: perQuery < single.load.p50 / 5,
    });
  }
  return targets;
}

const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

const HEAD = [
  'step',
  'req/s',
  'p50 ms',
  'p90 ms',
  'p99 ms',
  'max ms',
  'errors',
  'server mean ms',
  'neo4j read ms (reads/req)',
  'scoring ms (calls/req)',
  'rest ms',
];

function row(s: Step): string[] {
  const b = s.breakdown;
  const server = s.operation !== '__typename';
  return [
    s.name,
    f(s.load.rps, 0),
    f(s.load.p50),
    f(s.load.p90),
    f(s.load.p99),
    f(s.load.max),
    String(s.load.errors),
    f(b.serverMeanMs, 3),
    server ? `${f(b.readMeanMs)} (${f(b.readsPerRequest)})` : '-',
    server ? `${f(b.scoringMeanMs, 3)} (${f(b.scoringCallsPerRequest)})` : '-',
    server ? f(b.restMs) : '-',
  ];
}

export function printReport(r: ApiBenchResult): void {
  const rows = [HEAD, ...r.steps.map(row)];
  const widths = HEAD.map((_, i) => Math.max(...rows.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  const out = [
    r.kind === 'smoke' ? '*** SMOKE RUN (--quick): not a measurement ***' : '',
    ...rows.map(line),
    '',
    ...r.targets.map((t) => `${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: ${t.measured}`),
    '',
    ...warmupLines(r),
    '',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

function warmupLines(r: ApiBenchResult): string[] {
  const errors = Object.entries(r.serverLogErrors.counts);
  return [
    `Neo4j reads one at a time from the bench process (own driver, a session per read as the API): ${r.readFloor
      .map((x) => `${x.name} mean ${f(x.mean)} ms (p50 ${f(x.p50)}, p99 ${f(x.p99)})`)
      .join('; ')}`,
    `warm-up (not timed, first requests after the start): ${r.warmup
      .map((w) => `${w.name} ${w.requests} req, p99 ${f(w.p99, 1)} ms, ${w.errors} errors`)
      .join('; ')}`,
    errors.length === 0
      ? 'server log: no error lines'
      : `server log error lines: ${errors.map(([k, n]) => `${n} x ${k}`).join('; ')}; first: ${r.serverLogErrors.first ?? ''}`,
  ];
}

const NOTES_HEADING = '## Reading these numbers';

export function markdown(r: ApiBenchResult): string {
  const cells = (c: string[]) => `| ${c.join(' | ')} |`;
  return [
    '# API load benchmark (issue 14)',
    '',
    `${r.dataset.triplesInGraph.toLocaleString('en')} triples of \`${path.basename(r.dataset.dir)}/train.txt\` in a`,
    'local Neo4j 5.26 (heap 1g, page cache 512m); a model of the `default` preset trained',
    `${r.model.epochs} epoch(s) (${f(r.model.epochSeconds, 1)} s/epoch); \`kgc serve --model\` as its own process`,
    '(KGC_LOG_LEVEL=warn); autocannon in the bench process on the same machine. Requests: random',
    `(head, relation) pairs of train.txt (${r.dataset.pairs.toLocaleString('en')} distinct), sent with variables as`,
    '`missingLinks(entity, relation, k: 10) { entity { id } logit }`. Latencies are exact',
    "percentiles of every response. The breakdown is the server's own Prometheus histograms",
    '(sum/count before and after each step): a request waits for one Neo4j read and one scoring call',
    '(those of its batch: concurrent requests share them, hence reads/req below 1); "rest" is the',
    'server mean less those two (GraphQL, HTTP, batching wait, event-loop queueing).',
    `Produced by \`npx tsx bench/api/run.ts${r.args.quick ? ' --quick' : ''}\` at ${r.date}.`,
    '',
    cells(HEAD),
    cells(HEAD.map((_, i) => (i === 0 ? '---' : '---:'))),
    ...r.steps.map((s) => cells(row(s))),
    '',
    '## Targets',
    '',
    '| target | measured | |',
    '|---|---|---|',
    ...r.targets.map((t) => `| ${t.name} | ${t.measured} | **${t.pass ? 'pass' : 'FAIL'}** |`),
    '',
    ...warmupLines(r).map((l) => `- ${l}`),
    '',
    '## Machine',
    '',
    ...Object.entries(r.machine).map(([k, v]) => `- ${k}: ${v}`),
    '',
  ].join('\n');
}

/** JSON under results/; RESULTS.md (hand-written notes below the table kept) for full runs only. */
export function writeResults(r: ApiBenchResult): void {
  const dir = path.join(REPO_ROOT, 'bench', 'api', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = r.date.slice(0, 16).replace(/[-:]/g, '');
  const json = path.join(dir, `${r.kind === 'smoke' ? 'smoke' : 'api'}-${stamp}.json`);
  fs.writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(REPO_ROOT, json)}\n`);
  if (r.kind === 'smoke') return;
  const file = path.join(REPO_ROOT, 'bench', 'api', 'RESULTS.md');
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const notes = previous.indexOf(NOTES_HEADING);
  const md = markdown(r);
  fs.writeFileSync(file, notes >= 0 ? `${md}${previous.slice(notes)}` : md);
  process.stdout.write('wrote bench/api/RESULTS.md\n');
}
