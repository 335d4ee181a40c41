import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../src/errors';
import { Database } from '../../src/graph';
import { startServer } from '../../src/server/start-server';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

const MIGRATIONS = path.resolve(__dirname, '../../migrations');
/** package.json is where the version is written; the API must report that one. */
const VERSION = (
  JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
    version: string;
  }
).version;

async function post(url: string, query: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the GraphQL server over HTTP', () => {
  it('answers the health query and /healthz against the real database', async () => {
    const server = await startServer(testServerConfig(), { migrationsDir: MIGRATIONS });
    try {
      const result = await post(server.url, '{ health { status database version } }');
      expect(result.status).toBe(200);
      expect(result.body).toEqual({
        data: { health: { status: 'ok', database: 'neo4j', version: VERSION } },
      });
      const healthz = await fetch(server.url.replace(/graphql$/, 'healthz'));
      expect(healthz.status).toBe(200);

      const invalid = await post(server.url, '{ nope }');
      const errors = invalid.body.errors as { extensions: { code: string } }[];
      expect(errors[0]?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    } finally {
      await server.stop();
    }
  });

  it('refuses to start on a database with pending migrations, naming them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-pending-'));
    fs.writeFileSync(path.join(dir, 'V0001__not_yet.cypher'), 'RETURN 1;\n');
    const db: Database = testDatabase();
    await expect(
      startServer(
        testServerConfig(),
        { migrationsDir: dir, migrationChain: uniqueId('chain') },
        db,
      ),
    ).rejects.toMatchObject({
      code: ErrorCode.MIGRATIONS_PENDING,
      message: expect.stringContaining('V0001__not_yet.cypher'),
    });
  });
});
