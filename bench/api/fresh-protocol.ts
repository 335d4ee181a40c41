/**
 * The fresh-start protocol (issue 56, item 4: "fast from the moment it is ready"): what a user
 * sees in the first half minute after `kgc serve` says ready, on a graph and model made the
 * way a user makes them.
 *
 *   npx tsx bench/api/run.ts --protocol fresh [--data <dir>] [--dataset <name|dir>] [--epochs N]
 *                            [--kgc <another build's bin/kgc.js>]
 *
 * Its own local Neo4j holding the dataset's train, valid and test files, restarted once they
 * are in; a model trained with `kgc train --dataset <dir> --epochs 1 --out <dir>` (the CLI's
 * vocabulary covers all three files, its training train.txt); `kgc serve --model <dir>` as its
 * own process at the default log level; /readyz polled until 200, then 5 s, then the phases of
 * harness/fresh-phases.ts. Nothing is warmed up by the bench. Writes results/fresh-<time>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeMachine } from '../ingest/machine';
import type { BenchArgs } from './harness/cli-args';
import { serveAndMeasure } from './harness/fresh-phases';
import { benchNeo4jServer, ingestFiles, neo4jEnv, startBenchNeo4j } from './harness/neo4j-fixture';
import { Stopper } from './harness/stopper';
import { trainWithCli } from './harness/train-cli';
import { readPairs } from './harness/workload';
import { freshTargets, printFreshReport, writeFreshResults } from './fresh-report';
import type { FreshBenchResult } from './fresh-report';

export async function runFreshProtocol(args: BenchArgs): Promise<void> {
  const machine = describeMachine();
  const stopper = new Stopper();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-fresh-'));
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const files = ['train.txt', 'valid.txt', 'test.txt'].map((f) => path.join(args.dataset, f));
  const neo = await startBenchNeo4j(work);
  let restarted: ReturnType<typeof benchNeo4jServer> | undefined;
  try {
    const ingest = await ingestFiles(neo.db, files, work);
    log(`ingested ${ingest.written} triples in ${ingest.seconds.toFixed(1)} s`);
    stopper.check();
    const modelDir = path.join(work, 'model');
    const command = `kgc train --dataset ${args.dataset} --epochs ${args.epochs} --out <dir>`;
    const trained = await trainWithCli({
      dataset: args.dataset,
      epochs: args.epochs,
      out: modelDir,
      work,
      bin: args.kgc,
      signal: stopper.signal,
    });
    log(`${command}: ${trained.seconds.toFixed(0)} s`);
    stopper.check();
    // The API meets a Neo4j started after the data was in (a deploy, a reboot, `kgc ingest
    // --bulk`): its JIT has compiled none of the read path, its page cache holds none of the
    // graph. The server that ingested would hide both.
    await neo.stop();
    restarted = benchNeo4jServer(work);
    const target = await restarted.start();
    const measured = await serveAndMeasure({
      modelDir,
      bin: args.kgc,
      env: neo4jEnv(target),
      work,
      pairs: readPairs(files[0] as string),
      signal: stopper.signal,
      log,
    });
    const result: FreshBenchResult = {
      kind: 'fresh',
      date: new Date().toISOString(),
      args,
      machine,
      dataset: {
        dir: args.dataset,
        triplesInGraph: ingest.written,
        pairs: readPairs(files[0] as string).length,
      },
      model: { trainSeconds: trained.seconds, command },
      ...measured,
      targets: [],
    };
    result.targets = freshTargets(result);
    printFreshReport(result);
    writeFreshResults(result);
  } finally {
    if (restarted) await restarted.stop();
    else await neo.stop();
    stopper.dispose();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
