import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, MigrationRunner } from '../../src/graph';
import type { ConnectionTarget } from '../../src/graph';
import { REPO_ROOT } from '../../src/repo-root';
import { datasetDir, takeDataOption } from '../datasets';
import { benchNeo4jServer } from '../api/harness/neo4j-fixture';
import {
  edgeCount,
  killNeo4j as killFaultNeo4j,
  printFaultRows,
  startCli,
  until,
} from './fault-tools';
import type { FaultRow } from './fault-tools';

/**
 * `npx tsx bench/reliability/faults.ts [--data <dir>] [--dataset Nations] [--ingest FB15k-237]`
 *
 * Injects the faults an operator meets and prints what each left behind and whether the
 * product came back by itself: the retraining job (`kgc train`) killed at each phase; Neo4j
 * killed in the middle of a job (export to promotion) and in the middle of an ingest batch.
 * Every row checks: exactly one active version (or none, as before), the store holds no temp
 * folder once the next job ran, the killed run does not stay `running`, and the next job or
 * ingest succeeds. A run takes a few minutes; `npm run build` first (it runs the built CLI).
 */
const PHASES = ['export', 'split', 'train', 'evaluate', 'write', 'register', 'gate'];

interface RegistryState {
  active: string[];
  running: number;
  temps: string[];
}

async function registryState(db: Database, store: string): Promise<RegistryState> {
  const result = await db.read((tx) =>
    tx.run(
      `OPTIONAL MATCH (m:ModelVersion {status: 'active'}) WITH collect(m.id) AS active
       OPTIONAL MATCH (t:TrainingRun {status: 'running'})
       RETURN active, count(t) AS running`,
    ),
  );
  const record = result.records[0]!;
  const entries = fs.existsSync(store) ? fs.readdirSync(store) : [];
  return {
    active: record.get('active') as string[],
    running: Number(record.get('running')),
    temps: entries.filter((name) => name.startsWith('.') || name.includes('tmp')),
  };
}

const describeState = (s: RegistryState) =>
  `active ${s.active.length === 1 ? s.active[0] : `[${s.active.join(', ')}]`}, running runs ${s.running}, temp dirs ${s.temps.length}`;

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const option = (name: string, fallback: string) => {
    const i = rest.indexOf(name);
    return i >= 0 ? (rest[i + 1] ?? fallback) : fallback;
  };
  const dataset = datasetDir(option('--dataset', 'Nations'), data);
  const bigIngest = datasetDir(option('--ingest', 'FB15k-237'), data);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-faults-'));
  const log = (line: string) => process.stderr.write(`[faults] ${line}\n`);
  const neo4j = benchNeo4jServer(work);
  let target: ConnectionTarget = await neo4j.start();
  let db = new Database(target, { maxRetrySeconds: 30, connectTimeoutMs: 5000 });
  const store = path.join(work, 'models');
  const env = () => ({
    NEO4J_URI: target.uri,
    NEO4J_USER: target.user,
    NEO4J_PASSWORD: target.password,
    KGC_STATE_DIR: path.join(work, 'state'),
    KGC_MODEL_STORE: store,
    KGC_JOB_LEASE_SECONDS: '2',
  });
  const killNeo4j = () => killFaultNeo4j(neo4j, path.join(work, 'neo4j'));
  const restartNeo4j = async () => {
    await db.close();
    target = await neo4j.start();
    db = new Database(target, { maxRetrySeconds: 30, connectTimeoutMs: 5000 });
  };
  const rows: FaultRow[] = [];
  const train = ['train', '--epochs', '2', '--eval-every', '1'];
  try {
    await new MigrationRunner(db, { dir: path.join(REPO_ROOT, 'migrations') }).migrate();
    const ingest = startCli(['ingest', path.join(dataset, 'train.txt'), '--format', 'tsv'], env());
    if ((await ingest.exited) !== 0) throw new Error(`ingest failed:\n${ingest.output()}`);
    const first = startCli([...train, '--force'], env());
    if ((await first.exited) !== 0) throw new Error(`first job failed:\n${first.output()}`);

    for (const phase of PHASES) {
      const before = await registryState(db, store);
      const job = startCli([...train, '--force'], env());
      const seen = await until(() => job.output().includes(`phase=${phase}`), 120_000);
      job.kill();
      await job.exited;
      const left = await registryState(db, store);
      await new Promise((r) => setTimeout(r, 2500)); // the killed job's lease expires
      const next = startCli(train, env());
      const code = await next.exited;
      const after = await registryState(db, store);
      const activeKept = left.active.length === 1 && left.active[0] === before.active[0];
      rows.push({
        fault: `job killed in phase ${phase}${seen ? '' : ' (phase not seen: killed at the end)'}`,
        leftBehind: describeState(left),
        after: `next job exit ${code}; ${describeState(after)}`,
        ok:
          activeKept &&
          code === 0 &&
          after.active.length === 1 &&
          after.running === 0 &&
          after.temps.length === 0,
      });
      log(rows.at(-1)!.fault);
    }

    for (const phase of ['export', 'train', 'gate']) {
      const before = await registryState(db, store);
      const job = startCli([...train, '--force'], env());
      await until(() => job.output().includes(`phase=${phase}`), 120_000);
      await killNeo4j();
      const code = await job.exited;
      const message = job.output().match(/\b[A-Z_]{8,}\b/)?.[0] ?? 'no code';
      await restartNeo4j();
      const left = await registryState(db, store);
      await new Promise((r) => setTimeout(r, 2500));
      const next = startCli(train, env());
      const nextCode = await next.exited;
      const after = await registryState(db, store);
      rows.push({
        fault: `Neo4j killed during job phase ${phase}`,
        leftBehind: `job exit ${code} (${message}); ${describeState(left)}`,
        after: `next job exit ${nextCode}; ${describeState(after)}`,
        ok:
          left.active.length === 1 &&
          (left.active[0] === before.active[0] || phase === 'gate') &&
          nextCode === 0 &&
          after.active.length === 1 &&
          after.running === 0,
      });
      log(rows.at(-1)!.fault);
    }

    const triples = new Set(
      fs
        .readFileSync(path.join(bigIngest, 'train.txt'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== ''),
    ).size;
    const big = startCli(
      ['ingest', path.join(bigIngest, 'train.txt'), '--batch-size', '5000'],
      env(),
    );
    await until(() => /ingest phase=write/.test(big.output()), 300_000);
    await new Promise((r) => setTimeout(r, 1500));
    await killNeo4j();
    const bigCode = await big.exited;
    await restartNeo4j();
    const partial = await edgeCount(db);
    const again = startCli(
      ['ingest', path.join(bigIngest, 'train.txt'), '--batch-size', '5000'],
      env(),
    );
    const againCode = await again.exited;
    const full = await edgeCount(db);
    const nations = new Set(
      fs
        .readFileSync(path.join(dataset, 'train.txt'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== ''),
    ).size;
    rows.push({
      fault: `Neo4j killed mid-ingest (${path.basename(bigIngest)}, batches of 5,000)`,
      leftBehind: `ingest exit ${bigCode}; ${partial - nations} of ${triples} edges written`,
      after: `rerun exit ${againCode}; ${full - nations} of ${triples} edges`,
      ok: againCode === 0 && full - nations === triples,
    });
  } finally {
    await db.close().catch(() => undefined);
    await neo4j.stop().catch(() => false);
    printFaultRows(rows);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
