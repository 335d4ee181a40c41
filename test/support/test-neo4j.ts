import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalNeo4j } from '../../src/graph';

/** Environment variables through which the global setup hands the server to test workers. */
export const TEST_ENV = {
  uri: 'KGC_TEST_NEO4J_URI',
  user: 'KGC_TEST_NEO4J_USER',
  password: 'KGC_TEST_NEO4J_PASSWORD',
  dir: 'KGC_TEST_NEO4J_DIR',
} as const;

const PREFIX = 'kgc-test-neo4j-';

/** The run's server; `memory` overrides its heap and page cache (the product's are 1g / 512m). */
export function testNeo4j(
  dir: string,
  memory: { heap: string; pageCache: string } = { heap: '768m', pageCache: '256m' },
): LocalNeo4j {
  return new LocalNeo4j({
    dir,
    cacheDir: process.env.KGC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'kgc'),
    javaHome: process.env.JAVA_HOME,
    boltPort: 0,
    ...memory,
    database: 'neo4j',
    log: (line) => process.stderr.write(`[neo4j] ${line}\n`),
  });
}

export function newTestDir(): string {
  return path.join(os.tmpdir(), `${PREFIX}${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
}

/** Stops servers left by test runs that were killed before their teardown. */
const STARTING_GRACE_MS = 10 * 60_000;

export async function reapLeftoverServers(): Promise<void> {
  for (const name of fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(PREFIX))) {
    const dir = path.join(os.tmpdir(), name);
    const statePath = path.join(dir, 'state.json');
    let ownerPid: number | undefined;
    try {
      ownerPid = (JSON.parse(fs.readFileSync(statePath, 'utf8')) as { ownerPid?: number }).ownerPid;
    } catch {
      ownerPid = undefined;
    }
    if (ownerPid !== undefined && isAlive(ownerPid)) continue;
    // A folder without an owner yet may be another run's server that is still starting.
    if (ownerPid === undefined && Date.now() - fs.statSync(dir).mtimeMs < STARTING_GRACE_MS)
      continue;
    await testNeo4j(dir).stop(30_000);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
