import { EventLoopTurns } from '../../../src/event-loop-turns';
import type { ServingModel } from '../../../src/model';
import { GraphIndex } from '../../../src/model/rules/graph-index';
import {
  costContext,
  EDGE_COST,
  FIELD_COSTS,
  KNOWN_TAILS_PER_UNIT,
} from '../../../src/resolvers/query-cost';

const cost = FIELD_COSTS.edgeProbabilities!;

/** A served version whose graph has hub 0 with 50,000 tails of relation r (entity i -> i). */
async function servedWithHub(): Promise<ServingModel> {
  const n = 50_001;
  const heads = new Int32Array(n - 1);
  const tails = Int32Array.from({ length: n - 1 }, (_, i) => i + 1);
  const graph = await GraphIndex.build(
    n,
    2,
    heads,
    new Int32Array(n - 1),
    tails,
    new EventLoopTurns(),
  );
  const scorer = {
    findEntity: (id: string) => (/^e\d+$/.test(id) ? Number(id.slice(1)) : undefined),
    findRelation: (name: string) =>
      ['r', 's'].indexOf(name) >= 0 ? ['r', 's'].indexOf(name) : undefined,
  };
  return { graph, scorer } as unknown as ServingModel;
}

describe('edgeProbabilities request cost', () => {
  it("counts each distinct head and relation's known tails once, before any read", async () => {
    const served = costContext(await servedWithHub())!;
    const hub = (tail: number) => ({ head: 'e0', relation: 'r', tail: `e${tail}` });
    expect(served.knownTails('e0', 'r')).toBe(50_000);
    expect([served.knownTails('e0', 's'), served.knownTails('e5', 'r')]).toEqual([0, 0]);
    expect(served.knownTails('unknown', 'r') + served.knownTails('e0', 'unknown')).toBe(0);
    const hubUnits = Math.ceil(50_000 / KNOWN_TAILS_PER_UNIT);
    // 1,000 edges of one hub: its list is read once.
    const edges = Array.from({ length: 1000 }, (_, i) => hub(i + 1));
    expect(cost({ edges }, {}, served)).toBe(1000 * EDGE_COST + hubUnits);
    // The same edges cost what they did without a graph, plus the hub: the documented call fits.
    expect(cost({ edges }, {})).toBe(1000 * EDGE_COST);
    expect(1000 * EDGE_COST + hubUnits).toBeLessThanOrEqual(20_000);
    // Other heads and relations add their own (here none).
    const mixed = [...edges.slice(0, 10), { head: 'e7', relation: 'r', tail: 'e1' }];
    expect(cost({ edges: mixed }, {}, served)).toBe(11 * EDGE_COST + hubUnits);
  });

  it('prices many hubs past the limit', () => {
    const served = {
      knownTails: (head: string) => (head.startsWith('hub') ? 50_000 : 0),
      storedSuggestions: () => 0,
    };
    const edges = Array.from({ length: 1000 }, (_, i) => ({
      head: `hub${i}`,
      relation: 'r',
      tail: 'x',
    }));
    expect(cost({ edges }, {}, served)).toBe(1000 * EDGE_COST + 1000 * 50);
  });
});
