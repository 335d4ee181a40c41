import { FIELD_COSTS, REASONS_ROW_COST } from '../../../src/resolvers/query-cost';

describe('reviewQueue request cost', () => {
  it('costs first rows, plus a reasons read per row when reasons are selected', () => {
    const cost = FIELD_COSTS.reviewQueue!;
    expect(cost({ first: 50 }, {})).toBe(50);
    expect(cost({ first: 50 }, { reasons: true })).toBe(50 + 50 * REASONS_ROW_COST);
    // A first out of range is refused by the resolver; its cost stays bounded meanwhile.
    expect(cost({ first: 1e9 }, { reasons: true })).toBe(200 + 200 * REASONS_ROW_COST);
    expect(cost({ first: -3 }, {})).toBe(0);
  });
});
