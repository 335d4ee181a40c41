import fs from 'node:fs';
import path from 'node:path';
import { Database } from '../../../src/graph';
import { ErrorCode } from '../../../src/errors';
import { ingestFile, type BatchSplit } from '../../../src/ingest';
import { testDatabase, testTarget, uniqueId } from '../../support/test-database';
import { exportedTriples, removeEntities, tempDir, writeTsv, type Triple } from './ingest-fixtures';

/**
 * A batch that runs past its time limit (here: it waits on a head another transaction holds)
 * is rolled back by the server, split in two and written again, instead of failing the ingest.
 */
describe('an ingest batch past its time limit', () => {
  let db: Database;
  const dir = tempDir();
  const prefixes: string[] = [];
  beforeAll(() => (db = testDatabase()));
  afterAll(async () => {
    for (const prefix of prefixes) await removeEntities(db, prefix);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Ten edges a0..a9 -> z of one relation, the entities already in the graph. */
  async function graph(name: string) {
    const prefix = uniqueId(name);
    prefixes.push(prefix);
    const relation = `rel_${prefix}`;
    const triples: Triple[] = Array.from({ length: 10 }, (_, i) => [
      `${prefix}:a${i}`,
      relation,
      `${prefix}:z`,
    ]);
    const ids = [...triples.map(([h]) => h), `${prefix}:z`];
    await db.write((tx) => tx.run('UNWIND $ids AS id MERGE (:Entity {id: id})', { ids }));
    return { prefix, relation, triples, file: writeTsv(path.join(dir, `${prefix}.tsv`), triples) };
  }

  /** Holds the write lock of entity `id` until the returned function is called. */
  async function holdLock(id: string) {
    const session = db.openSession('WRITE');
    const tx = session.beginTransaction();
    await tx.run('MATCH (e:Entity {id: $id}) SET e.heldBy = "test"', { id });
    let released: Promise<void> | undefined;
    return () =>
      (released ??= tx
        .rollback()
        .then(() => session.close())
        .then(() => undefined));
  }

  /** A Database whose transactions have a 1.5 s budget: the first batch's limit. */
  const budgeted = () =>
    new Database(testTarget(), { maxRetrySeconds: 5, connectTimeoutMs: 5000, txTimeoutMs: 1500 });

  it('is rolled back, split in two and written: every edge lands, the split is reported', async () => {
    const { relation, triples, file } = await graph('split');
    const release = await holdLock(triples[7]![0]);
    const splits: BatchSplit[] = [];
    const slow = budgeted();
    try {
      const summary = await ingestFile(slow, {
        file,
        onSplit: (split) => {
          splits.push(split);
          // The lock goes once the whole batch has been rolled back: the halves get through.
          void release();
        },
      });
      expect(summary).toMatchObject({ triples: 10, written: 10, failed: 0, splits: 1 });
      expect(splits).toEqual([{ rows: 10, limitMs: 1500 }]);
    } finally {
      await release();
      await slow.close();
    }
    expect(await exportedTriples(db, [relation])).toEqual(
      new Set(triples.map((t) => t.join('\u0000'))),
    );
  });

  it('fails with DATABASE_TIMEOUT when one row alone runs past its limit; the rows before it are written', async () => {
    const { relation, triples, file } = await graph('stuck');
    const release = await holdLock(triples[3]![0]);
    const slow = budgeted();
    const splits: BatchSplit[] = [];
    try {
      await expect(
        ingestFile(slow, { file, onSplit: (split) => splits.push(split) }),
      ).rejects.toMatchObject({ code: ErrorCode.DATABASE_TIMEOUT });
    } finally {
      await release();
      await slow.close();
    }
    // In lock order a0..a9: the half holding a3 is halved down to a3 alone, whose failure
    // ends the ingest; the lines before it are written, none after it is tried.
    expect(splits.map((s) => s.rows)).toEqual([10, 5, 2]);
    expect(await exportedTriples(db, [relation])).toEqual(
      new Set(triples.slice(0, 3).map((t) => t.join('\u0000'))),
    );
    // Nothing half-written: a re-run (the lock gone) completes the graph.
    expect(await ingestFile(db, { file })).toMatchObject({ splits: 0, failed: 0 });
    expect(await exportedTriples(db, [relation])).toEqual(
      new Set(triples.map((t) => t.join('\u0000'))),
    );
  });
});
