import {
  FIELD_COSTS,
  REASONS_ROW_COST,
  REVIEW_STATS_COST,
  STORED_ITEMS_PER_UNIT,
} from '../../../src/resolvers/query-cost';

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

describe('pending and reviewStats request cost', () => {
  // The served version stores 2,000 tail and 500 head suggestions of relation r.
  const served = {
    knownTails: () => 0,
    storedSuggestions: (relation: string, direction?: 'tail' | 'head') =>
      relation !== 'r' ? 0 : direction === 'tail' ? 2000 : direction === 'head' ? 500 : 2500,
  };
  const units = (items: number) => Math.ceil(items / STORED_ITEMS_PER_UNIT);

  it('counts pending by the stored list it checks against the graph, before any read', () => {
    const cost = FIELD_COSTS.reviewQueue!;
    const args = { relation: 'r', direction: 'tail', first: 50 };
    expect(cost(args, {}, served)).toBe(50);
    expect(cost(args, { pending: true }, served)).toBe(50 + units(2000));
    expect(cost({ ...args, direction: 'head' }, { pending: true }, served)).toBe(50 + units(500));
    expect(cost({ ...args, relation: 'unknown' }, { pending: true }, served)).toBe(50);
  });

  it('counts reviewStats by the lists its decisions are matched against', () => {
    const cost = FIELD_COSTS.reviewStats!;
    expect(cost({ relation: 'r' }, {}, served)).toBe(REVIEW_STATS_COST + units(2500));
    expect(cost({ relation: 'r' }, { pending: true }, served)).toBe(
      REVIEW_STATS_COST + 2 * units(2500),
    );
    expect(cost({ relation: 'r' }, {})).toBe(REVIEW_STATS_COST);
  });
});
