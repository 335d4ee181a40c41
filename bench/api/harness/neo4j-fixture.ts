import os from 'node:os';
import path from 'node:path';
import { Database, LocalNeo4j, MigrationRunner } from '../../../src/graph';
import { REPO_ROOT } from '../../../src/repo-root';
import type { ConnectionTarget } from '../../../src/graph';
import { ingestFile } from '../../../src/ingest';

export interface BenchNeo4j {
  target: ConnectionTarget;
  /** The bench's own client (batch settings: retries, no fail-fast). */
  db: Database;
  stop(): Promise<void>;
}

/**
 * The bench's local Neo4j server in `work/neo4j` (not started), for benches that stop and kill
 * it; on a free port at each start, or always on `boltPort` (a server that comes back where its
 * clients look for it).
 */
export function benchNeo4jServer(work: string, boltPort = 0): LocalNeo4j {
  return new LocalNeo4j({
    dir: path.join(work, 'neo4j'),
    cacheDir: process.env.KGC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'kgc'),
    javaHome: process.env.JAVA_HOME,
    boltPort,
    heap: '1g',
    pageCache: '512m',
    database: 'neo4j',
    log: (line) => process.stderr.write(`[neo4j] ${line}\n`),
  });
}

/**
 * A local Neo4j 5.26 of the bench's own, in `work`, on a free port (heap 1g, page cache 512m,
 * as `kgc neo4j start` and bench/ingest), with the repository's migrations applied.
 */
export async function startBenchNeo4j(work: string): Promise<BenchNeo4j> {
  const server = benchNeo4jServer(work);
  const target = await server.start();
  const db = new Database(target, { maxRetrySeconds: 30, connectTimeoutMs: 5000 });
  try {
    await new MigrationRunner(db, { dir: path.join(REPO_ROOT, 'migrations') }).migrate();
  } catch (error) {
    await db.close();
    await server.stop();
    throw error;
  }
  return {
    target,
    db,
    stop: async () => {
      await db.close();
      await server.stop();
    },
  };
}

/**
 * Ingests TSV files through the product's own writer (rejected lines, if any, go to `work`, never
 * beside the shared dataset); returns the triples written and seconds.
 */
export async function ingestFiles(
  db: Database,
  files: string[],
  work: string,
): Promise<{ written: number; seconds: number }> {
  let written = 0;
  let seconds = 0;
  for (const file of files) {
    const rejectPath = path.join(work, `${path.basename(file)}.rejects.tsv`);
    const summary = await ingestFile(db, { file, rejectPath });
    written += summary.written;
    seconds += summary.seconds;
  }
  return { written, seconds };
}

/** Environment for a `kgc` child process that talks to this server and nothing else. */
export function neo4jEnv(target: ConnectionTarget): Record<string, string> {
  return {
    NEO4J_URI: target.uri,
    NEO4J_USER: target.user,
    NEO4J_PASSWORD: target.password,
    NEO4J_DATABASE: target.database,
  };
}
