import { ErrorCode, KgcError } from '../../../src/errors';
import type { BatchResult, TripleRow, TripleWriter } from '../../../src/graph';
import { BatchSizer } from '../../../src/ingest/batch-sizer';
import { writeBatch, type BatchSplit } from '../../../src/ingest/write-batch';

/** A writer that times out any batch holding the row `slow`, and writes the others. */
function writer(slow: string, calls: { rows: number; budgetMs?: number }[]) {
  return {
    writeEdges: (rows: TripleRow[], options: { budgetMs?: number } = {}) => {
      calls.push({ rows: rows.length, budgetMs: options.budgetMs });
      if (rows.some(([h]) => h === slow))
        return Promise.reject(new KgcError(ErrorCode.DATABASE_TIMEOUT, 'rolled back'));
      const result: BatchResult = {
        created: rows.length,
        present: 0,
        confirmed: 0,
        failed: 0,
        duplicates: 0,
      };
      return Promise.resolve(result);
    },
  } as unknown as TripleWriter;
}

const rows = (n: number): TripleRow[] => Array.from({ length: n }, (_, i) => [`h${i}`, 'r', 't']);

describe('writeBatch', () => {
  it('writes a healthy batch once, within the limit the sizer gives it', async () => {
    const calls: { rows: number; budgetMs?: number }[] = [];
    const outcome = await writeBatch(
      writer('none', calls),
      rows(8),
      new BatchSizer(8, 9_000),
      () => {
        throw new Error('no split expected');
      },
    );
    expect(outcome).toMatchObject({ created: 8, splits: 0 });
    expect(calls).toEqual([{ rows: 8, budgetMs: 9_000 }]);
  });

  it('splits a batch that times out until the row that cannot be written, then fails', async () => {
    const calls: { rows: number; budgetMs?: number }[] = [];
    const splits: BatchSplit[] = [];
    const sizer = new BatchSizer(8, 9_000);
    await expect(
      writeBatch(writer('h5', calls), rows(8), sizer, (s) => splits.push(s)),
    ).rejects.toMatchObject({ code: ErrorCode.DATABASE_TIMEOUT });
    // 8 -> [4 ok] [4 -> [2 (h4,h5) -> [h4 ok] [h5 fails]]]
    expect(calls.map((c) => c.rows)).toEqual([8, 4, 4, 2, 1, 1]);
    expect(splits.map((s) => s.rows)).toEqual([8, 4, 2]);
  });

  it('adds up the halves of a split batch', async () => {
    let first = true;
    const flaky = {
      writeEdges: (batch: TripleRow[]) => {
        if (first) {
          first = false;
          return Promise.reject(new KgcError(ErrorCode.DATABASE_TIMEOUT, 'rolled back'));
        }
        return Promise.resolve({
          created: batch.length - 1,
          present: 1,
          confirmed: 1,
          failed: 0,
          duplicates: 0,
        });
      },
    } as unknown as TripleWriter;
    const outcome = await writeBatch(flaky, rows(6), new BatchSizer(6, 9_000), () => undefined);
    expect(outcome).toEqual({
      created: 4,
      present: 2,
      confirmed: 2,
      failed: 0,
      duplicates: 0,
      splits: 1,
    });
  });

  it('does not split on other errors', async () => {
    const broken = {
      writeEdges: () => Promise.reject(new KgcError(ErrorCode.DATABASE_UNAVAILABLE, 'away')),
    } as unknown as TripleWriter;
    await expect(
      writeBatch(broken, rows(4), new BatchSizer(4, 9_000), () => {
        throw new Error('no split expected');
      }),
    ).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
  });
});
