/**
 * Sizes ingest batches by their measured time. A batch should take about `targetMs` (long
 * enough to amortise a transaction's fixed cost, far inside its budget): each batch's time per
 * row sets the next size, at most doubling or halving per step, within [1, maxRows]. A batch
 * gets a time limit of `LIMIT_FACTOR` times what it should take (at least MIN_LIMIT_MS, at most
 * the configured budget): one that runs past that is a bad plan or a lock wait, not a slow
 * machine, and is rolled back and split (writeBatch) instead of holding the ingest for the
 * whole budget.
 */
export const TARGET_BATCH_MS = 4_000;
/** The first batch, before any measurement: small enough to be quick on a cold server. */
export const FIRST_BATCH_ROWS = 10_000;
const LIMIT_FACTOR = 10;
const MIN_LIMIT_MS = 30_000;

export class BatchSizer {
  private rows: number;
  /** Measured milliseconds per row, smoothed; undefined until a batch was timed. */
  private msPerRow: number | undefined;

  constructor(
    private readonly maxRows: number,
    /** The configured transaction budget (KGC_DB_TX_TIMEOUT_MS): no limit exceeds it. */
    private readonly budgetMs: number,
    private readonly targetMs = TARGET_BATCH_MS,
  ) {
    this.rows = Math.max(1, Math.min(FIRST_BATCH_ROWS, maxRows));
  }

  /** Rows in the next batch. */
  get size(): number {
    return this.rows;
  }

  /** The time limit of a batch of `rows` rows. */
  limitMs(rows: number): number {
    if (this.msPerRow === undefined) return this.budgetMs;
    const expected = this.msPerRow * rows;
    return Math.min(this.budgetMs, Math.max(MIN_LIMIT_MS, LIMIT_FACTOR * expected));
  }

  /** A batch of `rows` rows committed in `ms`. */
  record(rows: number, ms: number): void {
    if (rows <= 0) return;
    const perRow = ms / rows;
    // Smoothed so one slow batch (a checkpoint, a GC) does not halve the next on its own.
    this.msPerRow = this.msPerRow === undefined ? perRow : 0.5 * this.msPerRow + 0.5 * perRow;
    const wanted = this.targetMs / Math.max(this.msPerRow, 1e-6);
    const next = Math.min(Math.max(wanted, this.rows / 2), this.rows * 2);
    this.rows = Math.max(1, Math.min(this.maxRows, Math.round(next)));
  }

  /** A batch ran past its limit: the next ones start from half its size. */
  timedOut(rows: number): void {
    this.rows = Math.max(1, Math.min(this.rows, Math.floor(rows / 2)));
  }
}
