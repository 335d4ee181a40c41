import { EventLoopTurns } from '../../../../src/event-loop-turns';
import { canaryEdges } from '../../../../src/model/fold-in/canary-edges';
import { CANARY_EDGES } from '../../../../src/model/fold-in/canary-file';
import { GraphIndex } from '../../../../src/model/rules/graph-index';

describe("a version's canary edges sampled from its graph", () => {
  it('picks distinct edges of the graph, each with its own relation', async () => {
    // 3 relations interleaved in input order; edge i is (i, i % 3, i + 1).
    const n = 3 * CANARY_EDGES;
    const heads = Int32Array.from({ length: n }, (_, i) => i);
    const rels = Int32Array.from({ length: n }, (_, i) => i % 3);
    const tails = Int32Array.from({ length: n }, (_, i) => i + 1);
    const graph = await GraphIndex.build(n + 1, 3, heads, rels, tails, new EventLoopTurns());
    const edges = canaryEdges(graph)!;
    expect(edges.length).toBe(3 * CANARY_EDGES);
    const seen = new Set<number>();
    for (let k = 0; k < edges.length; k += 3) {
      const [h, r, t] = [edges[k]!, edges[k + 1]!, edges[k + 2]!];
      expect([r, t]).toEqual([h % 3, h + 1]);
      seen.add(h);
    }
    expect(seen.size).toBe(CANARY_EDGES);
    // Every relation is sampled, and the same seed gives the same sample.
    expect(new Set(Array.from({ length: CANARY_EDGES }, (_, k) => edges[3 * k + 1])).size).toBe(3);
    expect(canaryEdges(graph)).toEqual(edges);
  });
});
