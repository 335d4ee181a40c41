import { ErrorCode, KgcError } from '../errors';
import type { BatchResult, TripleRow, TripleWriter } from '../graph';
import type { BatchSizer } from './batch-sizer';

/** A batch that ran past its time limit, was rolled back and is written again in two halves. */
export interface BatchSplit {
  rows: number;
  limitMs: number;
}

export interface BatchOutcome extends BatchResult {
  /** How many times this batch (or a part of it) was split after running past its limit. */
  splits: number;
}

/**
 * Writes one batch within the limit `sizer` gives it, and tells `sizer` how long it took. A
 * batch that runs past its limit was rolled back whole by the server (nothing of it written):
 * it is split in two and each half written the same way, so one bad batch slows the ingest
 * instead of failing it. A single row past its limit fails with DATABASE_TIMEOUT.
 */
export async function writeBatch(
  writer: TripleWriter,
  rows: TripleRow[],
  sizer: BatchSizer,
  onSplit: (split: BatchSplit) => void,
): Promise<BatchOutcome> {
  const limitMs = sizer.limitMs(rows.length);
  const started = Date.now();
  try {
    const result = await writer.writeEdges(rows, { budgetMs: limitMs });
    sizer.record(rows.length, Date.now() - started);
    return { ...result, splits: 0 };
  } catch (error) {
    const timedOut = error instanceof KgcError && error.code === ErrorCode.DATABASE_TIMEOUT;
    if (!timedOut || rows.length < 2) throw error;
    sizer.timedOut(rows.length);
    onSplit({ rows: rows.length, limitMs });
    const half = Math.ceil(rows.length / 2);
    const first = await writeBatch(writer, rows.slice(0, half), sizer, onSplit);
    const second = await writeBatch(writer, rows.slice(half), sizer, onSplit);
    return {
      created: first.created + second.created,
      present: first.present + second.present,
      confirmed: first.confirmed + second.confirmed,
      failed: first.failed + second.failed,
      duplicates: first.duplicates + second.duplicates,
      splits: 1 + first.splits + second.splits,
    };
  }
}
