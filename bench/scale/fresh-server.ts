import os from 'node:os';
import path from 'node:path';
import { Database, LocalNeo4j, MigrationRunner } from '../../src/graph';
import { databaseContents } from '../../src/graph/entities/database-contents';
import { exportDenseGraph } from '../../src/export';
import { REPO_ROOT } from '../../src/repo-root';

export const MIGRATIONS = path.join(REPO_ROOT, 'migrations');
export const CLIENT = { maxRetrySeconds: 30, connectTimeoutMs: 5000, txTimeoutMs: 3_600_000 };

export interface ServerSettings {
  /** A scratch folder; each server gets `<work>/<name>`. */
  work: string;
  heap: string;
  pageCache: string;
}

export interface ExportRun {
  edges: number;
  seconds: number;
  /** This process's peak RSS so far, MiB. */
  peakRssMiB: number;
  /** CPU seconds this process (the client) spent on the export: the rest is the server's. */
  clientCpuSeconds: number;
}

/** A fresh, started, migrated instance for `load`; checks the graph it leaves, then stops it. */
export async function onFreshServer<T>(
  name: string,
  settings: ServerSettings,
  load: (server: LocalNeo4j) => Promise<T>,
): Promise<T> {
  const server = new LocalNeo4j({
    dir: path.join(settings.work, name),
    cacheDir: process.env.KGC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'kgc'),
    javaHome: process.env.JAVA_HOME,
    boltPort: 0,
    heap: settings.heap,
    pageCache: settings.pageCache,
    database: 'neo4j',
    log: (line) => log(`[${name}] ${line}`),
  });
  try {
    await server.start();
    const db = connect(server);
    try {
      await new MigrationRunner(db, { dir: MIGRATIONS }).migrate();
    } finally {
      await db.close();
    }
    const result = await load(server);
    const after = connect(server);
    try {
      const contents = await databaseContents(after);
      log(`${name}: ${contents.entities} entities, ${contents.relationships} relationships`);
    } finally {
      await after.close();
    }
    return result;
  } finally {
    await server.stop();
  }
}

export function connect(server: LocalNeo4j): Database {
  const target = server.connection();
  if (!target) throw new Error('the server is not running');
  return new Database(target, CLIENT);
}

/** `runs` exports of every edge to dense ids, one after another on the same server. */
export async function timeExports(server: LocalNeo4j, runs: number): Promise<ExportRun[]> {
  const db = connect(server);
  const out: ExportRun[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const started = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      const graph = await exportDenseGraph(db);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const used = process.cpuUsage(cpu);
      const clientCpuSeconds = (used.user + used.system) / 1e6;
      const peakRssMiB = process.resourceUsage().maxRSS / 1024;
      out.push({ edges: graph.heads.length, seconds, peakRssMiB, clientCpuSeconds });
      log(`export ${i + 1}: ${graph.heads.length} edges in ${seconds.toFixed(1)} s`);
    }
  } finally {
    await db.close();
  }
  return out;
}

export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}
