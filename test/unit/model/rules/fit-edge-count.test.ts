import { logitBatch } from '../../../../src/model/rules/combiner-queries';
import { DEFAULT_COMBINER_FIT, fitEdgeCount } from '../../../../src/model/rules/fit-combiner';

describe('fitEdgeCount: the combiner fit samples validation edges by what scoring them costs', () => {
  it('takes every validation edge of a graph the size of FB15k-237 (17,535 of them)', () => {
    expect(fitEdgeCount(DEFAULT_COMBINER_FIT, 14_541)).toBeGreaterThanOrEqual(17_535);
  });

  it('spends the score budget on a large graph: edges x 2 questions x entities stays within it', () => {
    const entities = 144_486;
    const edges = fitEdgeCount(DEFAULT_COMBINER_FIT, entities);
    expect(edges).toBe(5_190);
    expect(edges * 2 * entities).toBeLessThanOrEqual(DEFAULT_COMBINER_FIT.scoreBudget);
    expect((edges + 1) * 2 * entities).toBeGreaterThan(DEFAULT_COMBINER_FIT.scoreBudget);
  });

  it('never samples fewer than the minimum, however many entities', () => {
    expect(fitEdgeCount(DEFAULT_COMBINER_FIT, 10_000_000)).toBe(DEFAULT_COMBINER_FIT.minEdges);
    expect(fitEdgeCount({ ...DEFAULT_COMBINER_FIT, minEdges: 10, scoreBudget: 0 }, 0)).toBe(10);
  });

  it('never samples more than the maximum on a small graph (its queries keep their competitors)', () => {
    expect(fitEdgeCount(DEFAULT_COMBINER_FIT, 100)).toBe(DEFAULT_COMBINER_FIT.maxEdges);
    expect(fitEdgeCount(DEFAULT_COMBINER_FIT, 30_000)).toBe(20_000);
  });
});

describe('logitBatch: the fit scores its questions in calls of bounded size', () => {
  it('asks 128 questions a call on a graph the size of FB15k-237', () => {
    expect(logitBatch(14_541)).toBe(128);
    expect(logitBatch(0)).toBe(128);
  });

  it('asks fewer on a large graph, so one call returns at most 4 Mi logits', () => {
    const entities = 144_486;
    expect(logitBatch(entities)).toBe(29);
    expect(logitBatch(entities) * entities).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect((logitBatch(entities) + 1) * entities).toBeGreaterThan(4 * 1024 * 1024);
  });

  it('asks one question a call however many entities', () => {
    expect(logitBatch(50_000_000)).toBe(1);
  });
});
