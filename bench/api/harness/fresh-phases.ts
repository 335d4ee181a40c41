import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { FreshPhase } from '../fresh-report';
import { pacedLoad, runLoad } from './load';
import type { LoadResult } from './load';
import { breakdown, scrape } from './prom';
import { serverEvents, serverLatencies } from './server-log';
import type { ServerEvent } from './server-log';
import { logErrors, startApiProcess, tail } from './server-process';
import { timeline } from './timeline';
import type { TimedLatency } from './timeline';
import { Bodies } from './workload';
import type { Pair } from './workload';

/** The wait after /readyz first says 200, before the first timed request. */
const SETTLE_MS = 5000;
const RATE = 200;

interface PhasePlan {
  name: string;
  operation: string;
  run: (signal: AbortSignal) => Promise<LoadResult>;
}

/**
 * The user's phases, in order: missingLinks `{ rank probability }` at 4 connections for 3 s, at
 * 32 for 8 s, evenly paced at 200 req/s for 15 s, then `{ __typename }` at 32 for 8 s.
 */
function plan(base: string, bodies: Bodies): PhasePlan[] {
  const ranked = () => bodies.ranked();
  const typename = () => Bodies.typename();
  const closed =
    (body: () => string, connections: number, seconds: number) => (signal: AbortSignal) =>
      runLoad({ base, body, connections, seconds, signal });
  return [
    { name: 'missingLinks c4 3 s', operation: 'missingLinks', run: closed(ranked, 4, 3) },
    { name: 'missingLinks c32 8 s', operation: 'missingLinks', run: closed(ranked, 32, 8) },
    {
      name: `missingLinks ${RATE}/s evenly paced 15 s`,
      operation: 'missingLinks',
      run: (signal) => pacedLoad({ base, body: ranked, rate: RATE, seconds: 15, signal }),
    },
    { name: '__typename c32 8 s', operation: '__typename', run: closed(typename, 32, 8) },
  ];
}

export interface FreshServeResult {
  /** From spawning `kgc serve` to /readyz's first 200. */
  secondsToReady: number;
  phases: FreshPhase[];
  events: ServerEvent[];
  serverLogErrors: ReturnType<typeof logErrors>;
}

/**
 * `kgc serve --model <dir>` as its own process at the default log level (a line per request,
 * which gives the server-side timeline), /readyz polled every 50 ms until 200, 5 s, then the
 * phases; nothing is warmed up by the bench. Stops the server before it returns.
 */
export async function serveAndMeasure(options: {
  modelDir: string;
  /** The `kgc` entry point (default this repository's bin/kgc.js). */
  bin?: string;
  env: Record<string, string>;
  work: string;
  pairs: Pair[];
  signal: AbortSignal;
  log: (line: string) => void;
}): Promise<FreshServeResult> {
  const spawned = Date.now();
  const server = await startApiProcess({
    args: ['--model', options.modelDir],
    bin: options.bin,
    env: options.env,
    work: options.work,
    logLevel: 'info',
    pollMs: 50,
  });
  try {
    const { base, readyAt } = server;
    options.log(
      `ready ${((readyAt - spawned) / 1000).toFixed(1)} s after spawn; load ${os.loadavg()[0]?.toFixed(2)}`,
    );
    // A scrape reads the staleness gauges (one entity scan, then count-store reads): taken at
    // once so that scan falls in the settling wait, as a monitoring scrape would.
    let before = await scrape(base);
    await new Promise((resolve) => setTimeout(resolve, readyAt + SETTLE_MS - Date.now()));
    const phases: FreshPhase[] = [];
    const clientSamples: TimedLatency[][] = [];
    for (const phase of plan(base, new Bodies(options.pairs, 20261123))) {
      if (options.signal.aborted) break;
      const start = Date.now();
      const { samples, ...load } = await phase.run(options.signal);
      const end = Date.now();
      const after = await scrape(base);
      phases.push({
        name: phase.name,
        operation: phase.operation,
        startedAt: (start - readyAt) / 1000,
        endedAt: (end - readyAt) / 1000,
        load,
        breakdown: breakdown(before, after, phase.operation),
        client: [],
        server: [],
      });
      clientSamples.push(samples.map((x) => ({ at: performance.timeOrigin + x.at, ms: x.ms })));
      before = after;
      options.log(
        `${phase.name}: ${load.rps.toFixed(0)} req/s, p50 ${load.p50.toFixed(2)} ms, p99 ${load.p99.toFixed(2)} ms, ${load.errors} errors`,
      );
    }
    await server.stop();
    const logFile = server.logFile;
    phases.forEach((p, i) => {
      const [start, end] = [readyAt + p.startedAt * 1000, readyAt + p.endedAt * 1000];
      p.client = timeline(clientSamples[i] ?? [], readyAt, start, end);
      p.server = timeline(serverLatencies(logFile, p.operation), readyAt, start, end);
    });
    const lastEnd = phases[phases.length - 1]?.endedAt ?? 0;
    return {
      secondsToReady: (readyAt - spawned) / 1000,
      phases,
      events: serverEvents(logFile, readyAt).filter((e) => e.at <= lastEnd),
      serverLogErrors: logErrors(logFile),
    };
  } finally {
    await server.stop();
    const lines = tail(server.logFile, 3);
    if (lines.trim()) options.log(`serve log, last lines:\n${lines}`);
  }
}
