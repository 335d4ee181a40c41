import { Database } from '../../../src/graph';
import { ErrorCode } from '../../../src/errors';
import { findFreePort } from '../../../src/graph/local/free-port';

describe('the app against a stopped server', () => {
  it('answers DATABASE_UNAVAILABLE within the retry budget, without hanging', async () => {
    const port = await findFreePort(); // nothing listens there: a stopped server
    const db = new Database(
      { uri: `bolt://127.0.0.1:${port}`, user: 'neo4j', password: 'whatever1', database: 'neo4j' },
      { maxRetrySeconds: 2, connectTimeoutMs: 1000 },
    );
    const started = Date.now();
    try {
      await expect(db.ping()).rejects.toMatchObject({
        code: ErrorCode.DATABASE_UNAVAILABLE,
        message: expect.stringContaining(`bolt://127.0.0.1:${port}`),
      });
      await expect(db.write((tx) => tx.run('CREATE (:X)'))).rejects.toMatchObject({
        code: ErrorCode.DATABASE_UNAVAILABLE,
      });
    } finally {
      await db.close();
    }
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
