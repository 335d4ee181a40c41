import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { REPO_ROOT } from '../../repo-root';
import { neo4jVersion } from './neo4j-version';

export function neo4jHomePath(cacheDir: string): string {
  return path.join(cacheDir, `neo4j-${neo4jVersion()}`);
}

/** A home is usable when its lib/ holds the Bolt and server jars (checked, not assumed). */
export function isNeo4jHomeComplete(home: string): boolean {
  const lib = path.join(home, 'lib');
  if (!fs.existsSync(lib)) return false;
  const version = neo4jVersion();
  const jars = fs.readdirSync(lib);
  return (
    jars.includes(`neo4j-bolt-${version}.jar`) &&
    jars.includes(`neo4j-server-${version}.jar`) &&
    fs.existsSync(path.join(home, '.complete'))
  );
}

/**
 * Assembles the Neo4j home (jars from Maven Central through scripts/neo4j/fetch.sh) unless it is
 * already there. Idempotent; no network once the home exists.
 */
export function ensureNeo4jHome(cacheDir: string, log: (line: string) => void): string {
  const home = neo4jHomePath(cacheDir);
  if (isNeo4jHomeComplete(home)) return home;
  log(`Fetching Neo4j ${neo4jVersion()} from Maven Central into ${home} ...`);
  const script = path.join(REPO_ROOT, 'scripts', 'neo4j', 'fetch.sh');
  const result = spawnSync('bash', [script, home], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0 || !isNeo4jHomeComplete(home)) {
    throw new KgcError(
      ErrorCode.NEO4J_SETUP_FAILED,
      `Fetching Neo4j ${neo4jVersion()} failed (exit ${result.status}); see the Maven output above.`,
    );
  }
  return home;
}
