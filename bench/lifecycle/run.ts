/**
 * Model lifecycle benchmark (issue 15): on the dataset's whole graph (train+valid+test) in a
 * local Neo4j, two retraining jobs (`runRetrainJob`, phase timings, s/epoch, store size per
 * version), then `kgc serve` following the registry under a steady autocannon load while the
 * other version is promoted mid-run: missingLinks p99 in the swap window vs before.
 *
 *   npx tsx bench/lifecycle/run.ts [--data <dir>] [--dataset <name|dir>] [--epochs N] [--seconds S] [--quick]
 *
 * A full run writes bench/lifecycle/results/lifecycle-<time>.json and bench/lifecycle/RESULTS.md;
 * a --quick (smoke) run only bench/lifecycle/results/smoke-<time>.json.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { getActiveVersion, promoteVersion } from '../../src/graph/registry';
import { runRetrainJob } from '../../src/jobs';
import type { RetrainResult } from '../../src/jobs';
import { ModelStore } from '../../src/model';
import { describeMachine } from '../ingest/machine';
import { parseBenchArgs } from '../api/harness/cli-args';
import { runLoad } from '../api/harness/load';
import { ingestFiles, neo4jEnv, startBenchNeo4j } from '../api/harness/neo4j-fixture';
import { logErrors, startApiProcess, tail } from '../api/harness/server-process';
import { Stopper } from '../api/harness/stopper';
import { Bodies, readPairs } from '../api/harness/workload';
import { printReport, writeResults } from './report';
import type { JobRow, LifecycleResult } from './report';
import { dirSize } from './store-size';
import { now, swapWindows, VersionWatch } from './swap';

const RATE = 200;
const CONNECTIONS = 10;

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), { epochs: 2, seconds: 30 });
  const machine = describeMachine();
  const stopper = new Stopper();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-lifecycle-'));
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const neo = await startBenchNeo4j(work);
  let server: Awaited<ReturnType<typeof startApiProcess>> | undefined;
  try {
    const files = ['train', 'valid', 'test'].map((s) => path.join(args.dataset, `${s}.txt`));
    const ingest = await ingestFiles(neo.db, files, work);
    log(`ingested ${ingest.written} triples in ${ingest.seconds.toFixed(1)} s`);
    stopper.check();
    const storeDir = path.join(work, 'store');
    const scope = `bench-${crypto.randomBytes(4).toString('hex')}`;
    const env = {
      ...neo4jEnv(neo.target),
      KGC_STATE_DIR: path.join(work, 'state'),
      KGC_MODEL_STORE: storeDir,
      KGC_REGISTRY_SCOPE: scope,
      KGC_MODEL_POLL_SECONDS: '1',
    };
    const config = loadConfig(env, work);
    const store = new ModelStore(storeDir);
    const jobs: JobRow[] = [];
    // The second job trains one epoch with another seed: a second version to swap to, whatever
    // the gate says of it.
    for (const [name, overrides] of [
      ['job 1', { epochs: args.epochs }],
      ['job 2', { epochs: 1, seed: 7 }],
    ] as const) {
      stopper.check();
      const epochSeconds: number[] = [];
      const result: RetrainResult = await runRetrainJob(neo.db, config, {
        trigger: 'bench',
        overrides,
        store,
        scope,
        signal: stopper.signal,
        onPhase: (phase) => log(`${name}: ${phase}`),
        onProgress: (event) => {
          if (event.kind === 'epoch' && event.seconds !== undefined)
            epochSeconds.push(event.seconds);
        },
        log: (line) => log(`${name}: ${line}`),
      });
      const size = dirSize(result.dir as string);
      jobs.push({
        name,
        epochs: overrides.epochs,
        version: result.version ?? '',
        status: result.status,
        promoted: result.promoted,
        timings: result.timings,
        epochSeconds,
        testMrr: result.metrics?.overall.mrr ?? null,
        gate: result.gate
          ? {
              candidateMrr: result.candidateMrr,
              activeMrr: result.activeMrr,
              compared: result.gate.compared,
            }
          : null,
        storeBytes: size.bytes,
        storeFiles: size.files,
        largestFiles: size.largest,
      });
      log(`${name}: ${result.status}, ${result.version}, ${JSON.stringify(result.timings)}`);
    }
    const active = (await getActiveVersion(neo.db, scope))?.version;
    const other = jobs.map((j) => j.version).find((v) => v !== active);
    if (!active || !other) throw new Error(`need two versions, active ${active}, other ${other}`);

    server = await startApiProcess({ args: [], env, work });
    const base = server.base;
    const bodies = new Bodies(readPairs(files[0] as string), 20261123);
    const single = () => bodies.single(true);
    const signal = stopper.signal;
    const warm = await runLoad({
      base,
      body: single,
      connections: 8,
      seconds: Math.max(2, Math.round(args.seconds / 6)),
      signal,
    });
    log(`warm-up: ${warm.requests} requests, p99 ${warm.p99.toFixed(1)} ms, ${warm.errors} errors`);
    for (const sample of warm.errorSamples.slice(0, 2)) log(`  error: ${sample}`);
    stopper.check();
    const loadBeforeLoad = os.loadavg();

    const watch = new VersionWatch();
    watch.target = other;
    const runStart = now();
    const promoteAfterMs = (args.seconds * 1000) / 2;
    let promotedAt = 0;
    const promotion = new Promise<void>((resolve, reject) => {
      setTimeout(() => {
        promotedAt = now();
        promoteVersion(neo.db, other, scope).then(() => resolve(), reject);
      }, promoteAfterMs);
    });
    const load = await runLoad({
      base,
      body: single,
      connections: CONNECTIONS,
      overallRate: RATE,
      seconds: args.seconds,
      onBody: watch.onBody,
      signal,
    });
    await promotion;
    stopper.check();
    const windows = swapWindows(load, runStart, promotedAt, watch.firstTargetAt, {
      skipMs: 1000,
      afterMs: 1000,
    });
    const result: LifecycleResult = {
      kind: args.quick ? 'smoke' : 'full',
      date: new Date().toISOString(),
      args,
      machine: {
        ...machine,
        'load average before the swap run (1/5/15 min; training just ran)': loadBeforeLoad
          .map((l) => l.toFixed(2))
          .join(' / '),
      },
      graph: { dir: args.dataset, triples: ingest.written },
      jobs,
      swap: {
        from: active,
        to: other,
        rate: RATE,
        connections: CONNECTIONS,
        seconds: load.seconds,
        requests: load.requests,
        errors: load.errors,
        errorSamples: load.errorSamples,
        promoteToFirstNewMs:
          watch.firstTargetAt === undefined ? null : watch.firstTargetAt - promotedAt,
        mixedVersionResponses: watch.mixed,
        oldVersionAfterFirstNew: watch.oldAfterSwap,
        responsesByVersion: Object.fromEntries(watch.seen),
        whole: { p50: load.p50, p99: load.p99, max: load.max },
        windows,
      },
      warmupErrors: warm.errors,
      serverLogErrors: logErrors(server.logFile),
    };
    printReport(result);
    writeResults(result);
  } finally {
    if (server) {
      const logFile = server.logFile;
      await server.stop();
      const lines = tail(logFile, 8);
      if (lines.trim()) process.stderr.write(`[serve log, last lines]\n${lines}\n`);
    }
    await neo.stop();
    stopper.dispose();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
