import { BatchSizer, FIRST_BATCH_ROWS, TARGET_BATCH_MS } from '../../../src/ingest/batch-sizer';

describe('BatchSizer', () => {
  it('starts small, with the whole budget as the first batch limit (nothing measured yet)', () => {
    const sizer = new BatchSizer(50_000, 120_000);
    expect(sizer.size).toBe(FIRST_BATCH_ROWS);
    expect(sizer.limitMs(sizer.size)).toBe(120_000);
    expect(new BatchSizer(500, 120_000).size).toBe(500);
  });

  it('grows toward the target time, at most doubling, never past the maximum', () => {
    const sizer = new BatchSizer(50_000, 120_000);
    // 10k rows in 0.5 s: the target (4 s) would allow 80k; one step doubles.
    sizer.record(10_000, 500);
    expect(sizer.size).toBe(20_000);
    sizer.record(20_000, 1000);
    expect(sizer.size).toBe(40_000);
    sizer.record(40_000, 2000);
    expect(sizer.size).toBe(50_000);
  });

  it('shrinks after slow batches, at most halving per batch', () => {
    const sizer = new BatchSizer(50_000, 120_000);
    sizer.record(10_000, 40_000); // 4 ms a row: 1,000 rows would meet the target
    expect(sizer.size).toBe(5_000);
    sizer.record(5_000, 20_000);
    expect(sizer.size).toBe(2_500);
    sizer.record(2_500, 10_000);
    expect(sizer.size).toBe(1_250);
    sizer.record(1_250, 5_000);
    expect(sizer.size).toBe(Math.round(TARGET_BATCH_MS / 4));
  });

  it('limits a batch to ten times its expected time, at least 30 s and at most the budget', () => {
    const sizer = new BatchSizer(50_000, 120_000);
    sizer.record(10_000, 1_000); // 0.1 ms a row
    expect(sizer.limitMs(20_000)).toBe(30_000); // expected 2 s: the floor
    expect(sizer.limitMs(50_000)).toBe(50_000); // expected 5 s
    expect(new BatchSizer(50_000, 10_000).limitMs(1)).toBe(10_000);
    const slow = new BatchSizer(50_000, 120_000);
    slow.record(10_000, 100_000);
    expect(slow.limitMs(50_000)).toBe(120_000);
  });

  it('after a timeout the next batches start from half the batch that timed out', () => {
    const sizer = new BatchSizer(50_000, 120_000);
    sizer.record(10_000, 500);
    expect(sizer.size).toBe(20_000);
    sizer.timedOut(20_000);
    expect(sizer.size).toBe(10_000);
    sizer.timedOut(1);
    expect(sizer.size).toBe(1);
  });
});
