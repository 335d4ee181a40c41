/**
 * API load benchmark (issue 14): a local Neo4j holding the dataset's train.txt, a model trained
 * for a few epochs, `kgc serve --model` as its own process, and autocannon over HTTP.
 *
 *   npx tsx bench/api/run.ts [--data <dir>] [--dataset <name|dir>] [--epochs N] [--seconds S] [--quick]
 *   npx tsx bench/api/run.ts --protocol fresh [--data <dir>] [--dataset <name|dir>] [--epochs N]
 *
 * Prints a table; a full run writes bench/api/results/api-<time>.json and bench/api/RESULTS.md,
 * a --quick (smoke) run only bench/api/results/smoke-<time>.json. `--protocol fresh` is a user's
 * first half minute after a fresh start instead (fresh-protocol.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { graphSize, resolveTrainingConfig, train } from '../../src/model';
import { mineRules, writeRules, writeVersionGraph } from '../../src/model/rules';
import { datasetArrays, trainGraph } from '../trust/dataset-arrays';
import { combineVersion } from '../../src/jobs/combine-version';
import { EventLoopTurns } from '../../src/event-loop-turns';
import { describeMachine } from '../ingest/machine';
import { parseBenchArgs } from './harness/cli-args';
import { pacedLoad, runLoad } from './harness/load';
import type { LoadResult } from './harness/load';
import { ingestFiles, neo4jEnv, startBenchNeo4j } from './harness/neo4j-fixture';
import { breakdown, scrape } from './harness/prom';
import type { Breakdown } from './harness/prom';
import { logErrors, startApiProcess, tail } from './harness/server-process';
import { Stopper } from './harness/stopper';
import { Bodies, readPairs, seededRandom } from './harness/workload';
import { measureReadFloor } from './harness/read-floor';
import { timeWorstRequests } from './harness/worst-request';
import { runFreshProtocol } from './fresh-protocol';
import { evaluateTargets, printReport, writeResults } from './report';
import type { ApiBenchResult, Step, WarmupStep } from './report';

const CONCURRENCIES = [1, 8, 32];
const STEADY_RATE = 200;
/** autocannon's default connection count, for the overallRate step. */
const STEADY_CONNECTIONS = 10;
const BATCH = 64;
/** missingLinks asking for reasons (issue 38: p99 < 50 ms at this rate). */
const REASONS_RATE = 50;

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), { epochs: 2, seconds: 15 });
  if (args.protocol === 'fresh') return runFreshProtocol(args);
  const machine = describeMachine();
  const stopper = new Stopper();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-api-'));
  const trainFile = path.join(args.dataset, 'train.txt');
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const neo = await startBenchNeo4j(work);
  let server: Awaited<ReturnType<typeof startApiProcess>> | undefined;
  try {
    const ingest = await ingestFiles(neo.db, [trainFile], work);
    log(`ingested ${ingest.written} triples in ${ingest.seconds.toFixed(1)} s`);
    stopper.check();
    const dataset = { dir: args.dataset };
    const config = resolveTrainingConfig(
      'default',
      { epochs: args.epochs },
      await graphSize(dataset),
    );
    const modelDir = path.join(work, 'model');
    const trained = await train(dataset, config, { outDir: modelDir, signal: stopper.signal });
    log(`trained ${trained.epochsRun} epoch(s), ${trained.epochSeconds.toFixed(1)} s/epoch`);
    // The version's rules and graph file, as the retrain job writes them (from the graph it
    // trained on): reasons are searched in memory and confirmed in Neo4j.
    const mined = trainGraph(args.dataset);
    const rules = await mineRules(mined);
    writeRules(modelDir, rules);
    log(`mined ${Object.values(rules.rules).flat().length} rules in ${rules.seconds.toFixed(1)} s`);
    log(await writeVersionGraph(mined, modelDir));
    // And how its answers combine the model with those rules (the combine step's choice).
    log(await combineVersion(modelDir, datasetArrays(args.dataset), new EventLoopTurns()));
    stopper.check();
    server = await startApiProcess({
      args: ['--model', modelDir],
      env: neo4jEnv(neo.target),
      work,
      // Another build's server on the same graph and model (two builds compared on one machine).
      bin: args.kgc,
    });
    const base = server.base;
    const pairs = readPairs(trainFile);
    const bodies = new Bodies(pairs, 20261123);
    await sanityCheck(base, bodies);

    const signal = stopper.signal;
    const single = () => bodies.single();
    const typename = () => Bodies.typename();
    const warm = Math.max(2, Math.round(args.seconds / 3));
    // The first requests after a start pay Neo4j's query planning and cold caches: not timed,
    // but their errors are kept (a cold start must not fail requests either).
    const warmup: WarmupStep[] = [];
    for (const [name, body, connections] of [
      ['missingLinks c8', single, 8],
      ['__typename c8', typename, 8],
      [`missingLinksBatch ${BATCH} c2`, () => bodies.batch(BATCH), 2],
      ['missingLinks with reasons c2', () => bodies.singleWithReasons(), 2],
    ] as const) {
      const at = new Date().toISOString();
      const load = await runLoad({ base, body, connections, seconds: warm, signal });
      warmup.push({ name, at, ...withoutSamples(load) });
      log(
        `warm-up ${name}: ${load.requests} requests, p99 ${load.p99.toFixed(1)} ms, ${load.errors} errors`,
      );
      for (const sample of load.errorSamples.slice(0, 2)) log(`  error: ${sample}`);
    }
    stopper.check();
    const loadBeforeLoad = os.loadavg();

    const steps: Step[] = [];
    const measure = async (
      name: string,
      operation: string,
      run: () => Promise<LoadResult>,
    ): Promise<Step> => {
      stopper.check();
      const before = await scrape(base);
      const load = await run();
      const after = await scrape(base);
      const split: Breakdown = breakdown(before, after, operation);
      const step = { name, operation, load: withoutSamples(load), breakdown: split };
      steps.push(step);
      log(
        `${name}: ${load.rps.toFixed(0)} req/s, p50 ${load.p50.toFixed(2)} ms, p99 ${load.p99.toFixed(2)} ms, ${load.errors} errors`,
      );
      for (const sample of load.errorSamples.slice(0, 2)) log(`  error: ${sample}`);
      return step;
    };
    const seconds = args.seconds;
    for (const c of CONCURRENCIES) {
      await measure(`missingLinks c${c}`, 'missingLinks', () =>
        runLoad({ base, body: single, connections: c, seconds, signal }),
      );
    }
    for (const c of CONCURRENCIES) {
      await measure(`__typename c${c}`, '__typename', () =>
        runLoad({ base, body: typename, connections: c, seconds, signal }),
      );
    }
    const steadySeconds = args.quick ? seconds : 2 * seconds;
    await measure(
      `missingLinks ${STEADY_RATE}/s (autocannon overallRate, ${STEADY_CONNECTIONS} conn)`,
      'missingLinks',
      () =>
        runLoad({
          base,
          body: single,
          connections: STEADY_CONNECTIONS,
          overallRate: STEADY_RATE,
          seconds: steadySeconds,
          signal,
        }),
    );
    await measure(`missingLinks ${STEADY_RATE}/s (even pacing, open loop)`, 'missingLinks', () =>
      pacedLoad({ base, body: single, rate: STEADY_RATE, seconds: steadySeconds, signal }),
    );
    for (const c of [1, 4]) {
      await measure(`missingLinksBatch ${BATCH} c${c}`, 'missingLinksBatch', () =>
        runLoad({ base, body: () => bodies.batch(BATCH), connections: c, seconds, signal }),
      );
    }
    await measure(
      `missingLinks with reasons ${REASONS_RATE}/s (evenly paced, open loop)`,
      'missingLinks',
      () =>
        pacedLoad({
          base,
          body: () => bodies.singleWithReasons(),
          rate: REASONS_RATE,
          seconds: steadySeconds,
          signal,
        }),
    );
    stopper.check();
    const worst = await timeWorstRequests(base, pairs, trainFile, args.quick ? 2 : 10);
    for (const w of worst) {
      log(
        `worst request (${w.name}; cost ${w.cost}, ${w.queries} queries): p50 ${w.request.p50.toFixed(0)} ms, ` +
          `max ${w.request.max.toFixed(0)} ms, ${w.errors} errors; /healthz meanwhile p50 ` +
          `${w.healthz.p50.toFixed(1)} ms, p99 ${w.healthz.p99.toFixed(1)} ms, max ${w.healthz.max.toFixed(1)} ms`,
      );
      if (w.firstError) log(`  first error: ${w.firstError}`);
    }
    stopper.check();
    const readFloor = await measureReadFloor(
      neo.db,
      pairs,
      seededRandom(7),
      args.quick ? 100 : 300,
    );
    for (const r of readFloor) {
      log(
        `${r.name}: mean ${r.mean.toFixed(2)} ms, p50 ${r.p50.toFixed(2)}, p99 ${r.p99.toFixed(2)}`,
      );
    }
    const result: ApiBenchResult = {
      kind: args.quick ? 'smoke' : 'full',
      date: new Date().toISOString(),
      args,
      machine: {
        ...machine,
        'load average before the load steps (1/5/15 min; training just ran)': loadBeforeLoad
          .map((l) => l.toFixed(2))
          .join(' / '),
      },
      dataset: {
        dir: args.dataset,
        triplesInGraph: ingest.written,
        pairs: pairs.length,
      },
      model: {
        preset: 'default',
        config,
        epochs: trained.epochsRun,
        epochSeconds: trained.epochSeconds,
      },
      batchSize: BATCH,
      warmup,
      steps,
      readFloor,
      worst,
      targets: [],
      serverLogErrors: logErrors(server.logFile),
    };
    result.targets = evaluateTargets(result);
    printReport(result);
    writeResults(result);
  } finally {
    if (server) {
      const log = server.logFile;
      await server.stop();
      const lines = tail(log, 5);
      if (lines.trim()) process.stderr.write(`[serve log, last lines]\n${lines}\n`);
    }
    await neo.stop();
    stopper.dispose();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function withoutSamples(load: LoadResult): Omit<LoadResult, 'samples'> {
  const kept: Partial<LoadResult> = { ...load };
  delete kept.samples;
  return kept as Omit<LoadResult, 'samples'>;
}

/** One request of each kind must answer without errors before anything is timed. */
async function sanityCheck(base: string, bodies: Bodies): Promise<void> {
  for (const body of [
    bodies.single(),
    bodies.singleWithReasons(),
    bodies.batch(BATCH),
    Bodies.typename(),
  ]) {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    if (response.status !== 200 || text.includes('"errors"')) {
      throw new Error(`sanity request failed (HTTP ${response.status}): ${text.slice(0, 500)}`);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
