import { Database } from '../../../src/graph';
import { ErrorCode } from '../../../src/errors';
import { TEST_ENV, testNeo4j } from '../../support/test-neo4j';
import { testTarget } from '../../support/test-database';

describe('LocalNeo4j (the server this run started)', () => {
  const dir = process.env[TEST_ENV.dir] as string;

  it('reports itself running and answering on loopback', async () => {
    const status = await testNeo4j(dir).status();
    expect(status.running).toBe(true);
    expect(status.responsive).toBe(true);
    expect(status.boltUri).toMatch(/^bolt:\/\/127\.0\.0\.1:\d+$/);
  });

  it('has auth on: a wrong password is refused with DATABASE_AUTH_FAILED', async () => {
    const db = new Database(
      { ...testTarget(), password: 'not-the-password' },
      { maxRetrySeconds: 1, connectTimeoutMs: 2000 },
    );
    try {
      await expect(db.ping()).rejects.toMatchObject({ code: ErrorCode.DATABASE_AUTH_FAILED });
    } finally {
      await db.close();
    }
  });

  it('is the Neo4j 5.26 Community server', async () => {
    const db = new Database(testTarget(), { maxRetrySeconds: 5, connectTimeoutMs: 2000 });
    try {
      const result = await db.autoCommit(
        'CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0] AS version, edition',
      );
      expect(result.records[0]?.get('version')).toMatch(/^5\.26\./);
      expect(result.records[0]?.get('edition')).toBe('community');
    } finally {
      await db.close();
    }
  });
});
