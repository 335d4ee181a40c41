import path from 'node:path';
import { Database, MigrationRunner } from '../../src/graph';
import { newTestDir, reapLeftoverServers, TEST_ENV, testNeo4j } from './test-neo4j';

/** Starts one real Neo4j for the whole run and applies the project's migrations. */
export default async function globalSetup(): Promise<void> {
  await reapLeftoverServers();
  const dir = newTestDir();
  const server = testNeo4j(dir);
  process.env[TEST_ENV.dir] = dir;
  try {
    const target = await server.start(process.pid);
    process.env[TEST_ENV.uri] = target.uri;
    process.env[TEST_ENV.user] = target.user;
    process.env[TEST_ENV.password] = target.password;
    const db = new Database(target, { maxRetrySeconds: 10, connectTimeoutMs: 5000 });
    try {
      await new MigrationRunner(db, { dir: path.resolve(__dirname, '../../migrations') }).migrate();
    } finally {
      await db.close();
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
}
