import { Database, TripleWriter } from '../../../src/graph';
import type { TripleRow } from '../../../src/graph';
import { ErrorCode } from '../../../src/errors';
import { TcpProxy } from '../../support/tcp-proxy';
import { testDatabase, testTarget, uniqueId } from '../../support/test-database';

/** A Database whose transactions have a budget of `txTimeoutMs`. */
function budgeted(txTimeoutMs: number, onRetry?: (code: string) => void): Database {
  return new Database(
    testTarget(),
    { maxRetrySeconds: 5, connectTimeoutMs: 5000, txTimeoutMs },
    { onRetry },
  );
}

async function count(db: Database, query: string, params: Record<string, unknown>) {
  const result = await db.read((tx) => tx.run(query, params));
  return Number(result.records[0]?.get('n'));
}

describe('a transaction that runs past its budget', () => {
  let db: Database;
  beforeAll(() => {
    db = testDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('is rolled back by the server and fails with DATABASE_TIMEOUT', async () => {
    const tag = uniqueId('slow');
    const slow = budgeted(500);
    const started = Date.now();
    try {
      // Writes first, then keeps the transaction busy far past the budget (CPU, no memory).
      await expect(
        slow.write(async (tx) => {
          await tx.run('CREATE (:SlowWrite {tag: $tag})', { tag });
          return tx.run('UNWIND range(1, 1000000000) AS i WITH sum(i) AS s RETURN s');
        }),
      ).rejects.toMatchObject({
        code: ErrorCode.DATABASE_TIMEOUT,
        message: expect.stringMatching(/within 500 ms; the server rolled it back, so nothing/),
      });
    } finally {
      await slow.close();
    }
    // The server's monitor looks every 2 s: the verdict comes well before the query would end.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await count(db, 'MATCH (n:SlowWrite {tag: $tag}) RETURN count(n) AS n', { tag })).toBe(
      0,
    );
  });

  it('is rolled back when it waits on a lock another session holds', async () => {
    const id = uniqueId('locked');
    const fresh = uniqueId('fresh');
    await db.write((tx) => tx.run('CREATE (:Entity {id: $id})', { id }));
    const holder = db.openSession('WRITE');
    const held = holder.beginTransaction();
    const blocked = budgeted(800);
    try {
      await held.run('MATCH (e:Entity {id: $id}) SET e.heldBy = "holder"', { id });
      // The server reports LockClientStopped here; the budget being spent makes it the timeout.
      await expect(
        blocked.write(async (tx) => {
          await tx.run('CREATE (:Entity {id: $fresh})', { fresh });
          await tx.run('MATCH (e:Entity {id: $id}) SET e.heldBy = "blocked"', { id });
        }),
      ).rejects.toMatchObject({
        code: ErrorCode.DATABASE_TIMEOUT,
        message: expect.stringContaining('nothing of it was written'),
      });
    } finally {
      await held.rollback();
      await holder.close();
      await blocked.close();
    }
    expect(await count(db, 'MATCH (e:Entity {id: $fresh}) RETURN count(e) AS n', { fresh })).toBe(
      0,
    );
    const stored = await db.read((tx) =>
      tx.run('MATCH (e:Entity {id: $id}) RETURN e.heldBy AS by', { id }),
    );
    expect(stored.records[0]?.get('by')).toBeNull();
    await db.write((tx) => tx.run('MATCH (e:Entity {id: $id}) DELETE e', { id }));
  });

  it('an auto-commit read past its budget fails with DATABASE_TIMEOUT too', async () => {
    const slow = budgeted(500);
    try {
      await expect(
        slow.readQuery('UNWIND range(1, 1000000000) AS i WITH sum(i) AS s RETURN s'),
      ).rejects.toMatchObject({ code: ErrorCode.DATABASE_TIMEOUT });
    } finally {
      await slow.close();
    }
  });
});

describe('a database that stops answering (the API, with its breaker)', () => {
  it('fails with DATABASE_TIMEOUT after the budget and a grace, then fails fast', async () => {
    const { proxy, uri } = await TcpProxy.start(testTarget().uri);
    const api = new Database(
      { ...testTarget(), uri },
      { maxRetrySeconds: 0, connectTimeoutMs: 1000 },
      { failFast: { callTimeoutMs: 500, probeEveryMs: 60_000 } },
    );
    try {
      await api.ping();
      proxy.hang();
      const started = Date.now();
      await expect(api.write((tx) => tx.run('CREATE (:HungWrite)'))).rejects.toMatchObject({
        code: ErrorCode.DATABASE_TIMEOUT,
        message: expect.stringMatching(
          /did not answer within 3500 ms\. It rolls back a transaction still open after 500 ms/,
        ),
      });
      // The server's verdict had 3 s to arrive: the client did not give up before it.
      expect(Date.now() - started).toBeGreaterThanOrEqual(3400);
      // The probe finds no answer either: the breaker opens and calls fail at once.
      await new Promise((resolve) => setTimeout(resolve, 4000));
      expect(api.unavailable).toBe(true);
      await expect(api.ping()).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    } finally {
      await proxy.close();
      await api.close();
    }
  });
});

describe('two overlapping batches written at once', () => {
  it('both commit in full, without a deadlock, in either row order', async () => {
    const tag = uniqueId('lo');
    const retried: string[] = [];
    const first = budgeted(30_000, (code) => retried.push(code));
    const second = budgeted(30_000, (code) => retried.push(code));
    // Every head links to every tail: each batch touches every node of the other.
    const ids = Array.from({ length: 30 }, (_, i) => `n${String(i).padStart(2, '0')}_${tag}`);
    const rel = `rel_${tag}`;
    const rows: TripleRow[] = [];
    for (const h of ids.slice(0, 15)) for (const t of ids.slice(15)) rows.push([h, rel, t]);
    try {
      // The entities exist, so only the edges' node locks are in play, then the same with new ids.
      for (let round = 0; round < 4; round++) {
        const forward = rows.map(([h, r, t]): TripleRow => [h, `${r}${round}`, t]);
        const backward = [...forward].reverse();
        const results = await Promise.all([
          new TripleWriter(first).writeEdges(forward),
          new TripleWriter(second).writeEdges(backward),
        ]);
        expect(results[0].created + results[1].created).toBe(forward.length);
        expect(results[0].failed + results[1].failed).toBe(0);
      }
      const edges = await count(
        first,
        'MATCH (h:Entity)-[r]->(:Entity) WHERE h.id ENDS WITH $tag RETURN count(r) AS n',
        { tag },
      );
      expect(edges).toBe(4 * rows.length);
      expect(retried.filter((code) => code.includes('Deadlock'))).toEqual([]);
    } finally {
      await first.write((tx) =>
        tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
      );
      await first.close();
      await second.close();
    }
  });
});
