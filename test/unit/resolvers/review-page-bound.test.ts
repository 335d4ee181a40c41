import type { Database } from '../../../src/graph';
import type { ServingModel } from '../../../src/model';

// Every stored item is decided except those listed: a long run of decided items at the top.
const undecided = new Set<string>();
const checked: number[] = [];
jest.mock('../../../src/graph', () => ({
  decidedEdges: async (_db: unknown, _relation: string, pairs: (readonly [string, string])[]) => {
    checked.push(pairs.length);
    return pairs.map(([head]) => !undecided.has(head));
  },
}));

// Imported after the mock so that the page reads through it.
import { MAX_REVIEW_CHECKED, reviewPage } from '../../../src/resolvers/review-queue';

const items = Array.from({ length: 10_000 }, (_, i) => ({
  head: `h${i}`,
  tail: 't',
  probability: 1 - i / 10_000,
  logit: 0,
}));

const model = {
  version: 'v1',
  scorer: { relation: () => 0, findEntity: () => undefined },
  suggestions: { list: () => ({ createdAt: 'now', items }) },
} as unknown as ServingModel;

describe('a review page checks a bounded number of stored items per request', () => {
  it('ends short with a cursor where the check stopped, and the next request goes on', async () => {
    undecided.clear();
    undecided.add('h9000');
    checked.length = 0;
    const args = { relation: 'r', direction: 'tail' as const, first: 50 };
    const page = await reviewPage({} as Database, model, args);
    expect(page.items).toEqual([]);
    expect(page.hasMore).toBe(true);
    expect(checked.reduce((a, b) => a + b, 0)).toBe(MAX_REVIEW_CHECKED);
    // Requests go on from the cursor until the undecided item is found, each within the bound.
    let after = page.endCursor;
    for (let request = 0; request < 5; request++) {
      checked.length = 0;
      const next = await reviewPage({} as Database, model, { ...args, after });
      expect(checked.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(MAX_REVIEW_CHECKED);
      if (next.items.length > 0) {
        expect(next.items.map((i) => i.head.id)).toEqual(['h9000']);
        expect(next.hasMore).toBe(false);
        return;
      }
      after = next.endCursor;
    }
    throw new Error('the undecided item was never reached');
  });
});
