import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/repo-root';
import type { BenchArgs } from '../api/harness/cli-args';
import { mib } from './store-size';
import type { Window } from './swap';

export interface JobRow {
  name: string;
  epochs: number;
  version: string;
  status: string;
  promoted: boolean;
  /** Seconds per phase: export, split, train, evaluate, write, register, gate. */
  timings: Record<string, number>;
  /** Training seconds of each epoch (validation excluded), from the engine's progress. */
  epochSeconds: number[];
  testMrr: number | null;
  gate: { candidateMrr: number | null; activeMrr: number | null; compared: number } | null;
  storeBytes: number;
  storeFiles: number;
  largestFiles: { file: string; bytes: number }[];
}

export interface LifecycleResult {
  kind: 'smoke' | 'full';
  date: string;
  args: BenchArgs;
  machine: Record<string, string>;
  graph: { dir: string; triples: number };
  jobs: JobRow[];
  swap: {
    from: string;
    to: string;
    rate: number;
    connections: number;
    seconds: number;
    requests: number;
    errors: number;
    errorSamples: string[];
    promoteToFirstNewMs: number | null;
    mixedVersionResponses: number;
    oldVersionAfterFirstNew: number;
    responsesByVersion: Record<string, number>;
    whole: { p50: number; p99: number; max: number };
    windows: Window[];
  };
  /** Errors of the untimed warm-up before the swap run (a cold start must not fail either). */
  warmupErrors: number;
  /** Error lines in the server's log over the whole run, warm-up included. */
  serverLogErrors: { counts: Record<string, number>; first: string | null };
}

const PHASES = ['export', 'split', 'train', 'evaluate', 'write', 'register', 'gate'];
const f = (x: number | null | undefined, d = 2) =>
  x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

function jobTable(r: LifecycleResult): string[][] {
  const head = [
    'measure',
    ...r.jobs.map((j) => `${j.name} (${j.epochs} epoch${j.epochs > 1 ? 's' : ''})`),
  ];
  const rows: string[][] = [head];
  for (const phase of PHASES) rows.push([`${phase}, s`, ...r.jobs.map((j) => f(j.timings[phase]))]);
  rows.push([
    'total, s',
    ...r.jobs.map((j) => f(Object.values(j.timings).reduce((a, b) => a + b, 0))),
  ]);
  rows.push([
    'train, s per epoch (engine, validation excluded)',
    ...r.jobs.map((j) => f(mean(j.epochSeconds))),
  ]);
  rows.push(['test MRR (held-out edges)', ...r.jobs.map((j) => f(j.testMrr, 4))]);
  rows.push([
    'gate',
    ...r.jobs.map((j) =>
      j.gate
        ? `${j.status}: ${f(j.gate.candidateMrr, 4)} vs ${f(j.gate.activeMrr, 4)} on ${j.gate.compared} edges`
        : `${j.status} (first version)`,
    ),
  ]);
  rows.push([
    'version dir on disk',
    ...r.jobs.map((j) => `${mib(j.storeBytes)} (${j.storeFiles} files)`),
  ]);
  rows.push([
    'largest files',
    ...r.jobs.map((j) =>
      j.largestFiles
        .slice(0, 3)
        .map((x) => `${x.file} ${mib(x.bytes)}`)
        .join(', '),
    ),
  ]);
  return rows;
}

function swapTable(r: LifecycleResult): string[][] {
  const rows = [['window', 's', 'responses', 'p50 ms', 'p99 ms', 'max ms']];
  for (const w of r.swap.windows) {
    rows.push([w.name, f(w.seconds, 1), String(w.responses), f(w.p50), f(w.p99), f(w.max)]);
  }
  return rows;
}

function swapFacts(r: LifecycleResult): string[] {
  const s = r.swap;
  const ratio = (s.windows[1]?.p99 ?? NaN) / (s.windows[0]?.p99 ?? NaN);
  return [
    `steady ${s.rate} req/s (autocannon overallRate, ${s.connections} connections) for ${f(s.seconds, 1)} s, ${s.requests} responses, ${s.errors} errors`,
    `promotion of ${s.to} (serving ${s.from}) at mid-run; first answer by it ${f(s.promoteToFirstNewMs, 0)} ms after the promotion (poll every 1 s + load)`,
    `swap-window p99 / before p99: ${f(ratio)}x`,
    `responses mixing two versions: ${s.mixedVersionResponses}; old-version answers after the first new one: ${s.oldVersionAfterFirstNew}`,
    ...s.errorSamples.slice(0, 3).map((e) => `error sample: ${e}`),
    `warm-up errors (untimed, after the server's start): ${r.warmupErrors}`,
    Object.keys(r.serverLogErrors.counts).length === 0
      ? 'server log: no error lines'
      : `server log error lines: ${Object.entries(r.serverLogErrors.counts)
          .map(([k, n]) => `${n} x ${k}`)
          .join('; ')}; first: ${r.serverLogErrors.first ?? ''}`,
  ];
}

function textTable(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((cells) =>
      cells
        .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
        .join('  '),
    )
    .join('\n');
}

function mdTable(rows: string[][]): string {
  const [head, ...body] = rows;
  const line = (c: string[]) => `| ${c.join(' | ')} |`;
  return [
    line(head ?? []),
    line((head ?? []).map((_, i) => (i === 0 ? '---' : '---:'))),
    ...body.map(line),
  ].join('\n');
}

export function printReport(r: LifecycleResult): void {
  process.stdout.write(
    [
      r.kind === 'smoke' ? '*** SMOKE RUN (--quick): not a measurement ***' : '',
      textTable(jobTable(r)),
      '',
      textTable(swapTable(r)),
      ...swapFacts(r),
      '',
    ].join('\n'),
  );
}

const NOTES_HEADING = '## Reading these numbers';

export function writeResults(r: LifecycleResult): void {
  const dir = path.join(REPO_ROOT, 'bench', 'lifecycle', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = r.date.slice(0, 16).replace(/[-:]/g, '');
  const json = path.join(dir, `${r.kind === 'smoke' ? 'smoke' : 'lifecycle'}-${stamp}.json`);
  fs.writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(REPO_ROOT, json)}\n`);
  if (r.kind === 'smoke') return;
  const md = [
    '# Model lifecycle benchmark (issue 15)',
    '',
    `The whole of \`${path.basename(r.graph.dir)}\` (train+valid+test, ${r.graph.triples.toLocaleString('en')} triples) in a local`,
    'Neo4j 5.26; two retraining jobs through `runRetrainJob` (the `default` preset; the second with',
    'one epoch and another seed, to have a second version), a model store in a temp dir, a fresh',
    'registry scope. Then `kgc serve` following the registry (poll 1 s) under a steady load while the',
    'version not serving is promoted mid-run.',
    `Produced by \`npx tsx bench/lifecycle/run.ts\` at ${r.date}.`,
    '',
    '## Job phases',
    '',
    mdTable(jobTable(r)),
    '',
    '## Hot swap under load',
    '',
    mdTable(swapTable(r)),
    '',
    ...swapFacts(r).map((l) => `- ${l}`),
    '',
    '## Machine',
    '',
    ...Object.entries(r.machine).map(([k, v]) => `- ${k}: ${v}`),
    '',
  ].join('\n');
  const file = path.join(REPO_ROOT, 'bench', 'lifecycle', 'RESULTS.md');
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const notes = previous.indexOf(NOTES_HEADING);
  fs.writeFileSync(file, notes >= 0 ? `${md}${previous.slice(notes)}` : md);
  process.stdout.write('wrote bench/lifecycle/RESULTS.md\n');
}
