import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/repo-root';
import type { BenchArgs } from './harness/cli-args';
import type { LoadResult } from './harness/load';
import type { Breakdown } from './harness/prom';
import type { ServerEvent } from './harness/server-log';
import type { Bucket } from './harness/timeline';
import type { Target } from './report';

/** One timed phase of the fresh protocol, with when it ran relative to /readyz's first 200. */
export interface FreshPhase {
  name: string;
  operation: string;
  /** Seconds after /readyz's first 200. */
  startedAt: number;
  endedAt: number;
  load: Omit<LoadResult, 'samples'>;
  breakdown: Breakdown;
  /** Client-side latency per second of the phase. */
  client: Bucket[];
  /** Server-side latency per second (the server's request log). */
  server: Bucket[];
}

export interface FreshBenchResult {
  kind: 'fresh';
  date: string;
  args: BenchArgs;
  machine: Record<string, string>;
  dataset: { dir: string; triplesInGraph: number; pairs: number };
  model: { trainSeconds: number; command: string };
  /** From spawning `kgc serve` to /readyz's first 200. */
  secondsToReady: number;
  phases: FreshPhase[];
  /** The server's own lines other than requests (start-up work, fold-in), timed from ready. */
  events: ServerEvent[];
  targets: Target[];
  serverLogErrors: { counts: Record<string, number>; first: string | null };
}

/** The issue's targets for this protocol, judged on this run's own numbers. */
export function freshTargets(r: FreshBenchResult): Target[] {
  const targets: Target[] = [];
  const saturated = r.phases.find((p) => p.name.startsWith('missingLinks c32'));
  const trivial = r.phases.find((p) => p.name.startsWith('__typename c32'));
  if (saturated && trivial) {
    const ratio = trivial.load.rps / Math.max(1e-9, saturated.load.rps);
    targets.push({
      name: 'saturated missingLinks req/s >= 1/6 of __typename req/s (32 connections each)',
      measured: `${saturated.load.rps.toFixed(0)} / ${trivial.load.rps.toFixed(0)} = 1/${ratio.toFixed(2)}`,
      pass: ratio <= 6 && saturated.load.errors === 0,
    });
  }
  const paced = r.phases.find((p) => p.name.includes('evenly paced'));
  if (paced) {
    targets.push({
      name: `missingLinks { rank probability } p99 < 20 ms at an evenly paced 200 req/s from ${paced.startedAt.toFixed(0)} s after ready, zero errors`,
      measured: `p50 ${paced.load.p50.toFixed(2)} ms, p99 ${paced.load.p99.toFixed(2)} ms, ${paced.load.errors} errors`,
      pass: paced.load.p99 < 20 && paced.load.errors === 0,
    });
  }
  return targets;
}

const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

function timelineLine(label: string, buckets: Bucket[]): string {
  return `  ${label} p50/p99 per second: ${buckets
    .map((b) => `${f(b.p50, 1)}/${f(b.p99, 1)}`)
    .join(' ')}`;
}

export function printFreshReport(r: FreshBenchResult): void {
  const out = [
    `kgc serve ready ${f(r.secondsToReady, 1)} s after spawn; ${r.dataset.triplesInGraph} triples in Neo4j; model: ${r.model.command} (${f(r.model.trainSeconds, 0)} s)`,
    'start-up events (seconds after /readyz first said 200):',
    ...r.events.map(
      (e) => `  ${f(e.at, 2)} s  ${e.msg}${e.ms !== undefined ? ` (${f(e.ms, 0)} ms)` : ''}`,
    ),
    '',
  ];
  for (const p of r.phases) {
    const b = p.breakdown;
    out.push(
      `${p.name} [${f(p.startedAt, 1)}-${f(p.endedAt, 1)} s]: ${f(p.load.rps, 0)} req/s, p50 ${f(p.load.p50)} ms, ` +
        `p99 ${f(p.load.p99)} ms, max ${f(p.load.max, 1)} ms, ${p.load.errors} errors; server mean ` +
        `${f(b.serverMeanMs, 3)} ms (neo4j read ${f(b.readMeanMs)} ms x ${f(b.readsPerRequest)}, ` +
        `scoring ${f(b.scoringMeanMs, 3)} ms x ${f(b.scoringCallsPerRequest)})`,
      timelineLine('client', p.client),
      timelineLine('server', p.server),
    );
    for (const sample of p.load.errorSamples.slice(0, 2)) out.push(`  error: ${sample}`);
  }
  const errors = Object.entries(r.serverLogErrors.counts);
  out.push(
    '',
    ...r.targets.map((t) => `${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: ${t.measured}`),
    errors.length === 0
      ? 'server log: no error lines'
      : `server log error lines: ${errors.map(([k, n]) => `${n} x ${k}`).join('; ')}`,
    '',
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

/** results/fresh-<time>.json; the notes in RESULTS.md are written by hand. */
export function writeFreshResults(r: FreshBenchResult): void {
  const dir = path.join(REPO_ROOT, 'bench', 'api', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = r.date.slice(0, 16).replace(/[-:]/g, '');
  const json = path.join(dir, `fresh-${stamp}.json`);
  fs.writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(REPO_ROOT, json)}\n`);
}
