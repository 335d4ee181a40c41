import { loadConfig } from '../../src/config';
import crypto from 'node:crypto';
import { Database } from '../../src/graph';
import type { ConnectionTarget } from '../../src/graph';
import { TEST_ENV } from './test-neo4j';

export function testTarget(): ConnectionTarget {
  const uri = process.env[TEST_ENV.uri];
  const user = process.env[TEST_ENV.user];
  const password = process.env[TEST_ENV.password];
  if (!uri || !user || !password) {
    throw new Error('The Neo4j test server is not set up: run integration tests through jest.');
  }
  return { uri, user, password, database: 'neo4j' };
}

/** A Database on the run's shared server; close it in afterAll. */
export function testDatabase(): Database {
  return new Database(testTarget(), { maxRetrySeconds: 10, connectTimeoutMs: 5000 });
}

/** Unique ids keep tests apart on the shared server. */
export function uniqueId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
}

/** The app's config pointed at the run's shared server, HTTP on a free port; `env` adds to it. */
export function testServerConfig(env: Record<string, string> = {}) {
  const target = testTarget();
  return loadConfig({
    NEO4J_URI: target.uri,
    NEO4J_USER: target.user,
    NEO4J_PASSWORD: target.password,
    KGC_HTTP_PORT: '0',
    ...env,
  });
}
