import path from 'node:path';
import type { Config } from '../config';
import { ErrorCode, KgcError } from '../errors';
import { Database, ConnectionTarget, DatabaseOptions } from './database';
import { LocalNeo4j } from './local/local-neo4j';

/** The project's own local instance (`kgc neo4j start|stop|status`), from config. */
export function localNeo4jFromConfig(config: Config, log?: (line: string) => void): LocalNeo4j {
  const local =
    config.neo4j.kind === 'local'
      ? config.neo4j
      : { boltPort: 7687, heap: '1g', pageCache: '512m', database: config.neo4j.database };
  return new LocalNeo4j({
    dir: path.join(config.stateDir, 'neo4j', 'local'),
    cacheDir: config.cacheDir,
    javaHome: config.javaHome,
    boltPort: local.boltPort,
    heap: local.heap,
    pageCache: local.pageCache,
    database: local.database,
    log,
  });
}

/**
 * NEO4J_URI set: that server (Aura, a cluster through neo4j://), nothing started.
 * Otherwise: the local instance, which must be running.
 */
export function resolveConnection(config: Config): ConnectionTarget {
  if (config.neo4j.kind === 'external') {
    const { uri, user, password, database } = config.neo4j;
    return { uri, user, password, database };
  }
  const target = localNeo4jFromConfig(config).connection();
  if (!target) {
    throw new KgcError(
      ErrorCode.DATABASE_UNAVAILABLE,
      'No NEO4J_URI is set and the local Neo4j is not running: start it with `npx kgc neo4j start`.',
    );
  }
  return target;
}

export function openDatabase(config: Config, options: DatabaseOptions = {}): Database {
  return new Database(resolveConnection(config), config.client, options);
}
