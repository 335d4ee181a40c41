import { EventLoopTurns } from '../../../../src/event-loop-turns';
import { negativePool } from '../../../../src/model/fold-in/negative-pool';
import { GraphIndex } from '../../../../src/model/rules/graph-index';

/** A graph of 40 nodes: relation 0 from every node to node 0 (a hub), relation 1 a chain. */
async function graph(): Promise<GraphIndex> {
  const heads: number[] = [];
  const rels: number[] = [];
  const tails: number[] = [];
  for (let n = 1; n < 40; n++) {
    heads.push(n, n - 1);
    rels.push(0, 1);
    tails.push(0, n);
  }
  heads.push(5);
  rels.push(0);
  tails.push(7); // a second answer of (5, 0): one query still
  const ints = (a: number[]) => Int32Array.from(a);
  return GraphIndex.build(40, 2, ints(heads), ints(rels), ints(tails), new EventLoopTurns());
}

// Model relations: base r forward, r + 2 its reverse.
const reverse = (r: number) => r + 2;

describe('the negative pool of a version graph', () => {
  it('stands for every known query once, by stratum, with real known queries only', async () => {
    const g = await graph();
    const pool = (await negativePool(g, reverse, { size: 12 }))!;
    // Known queries: (n, 0) for n 1..39 (39), (0, rev 0) (1), (7, rev 0) (1), (n, 1) for
    // n 0..38 (39), (n, rev 1) for n 1..39 (39).
    const total = pool.standsFor.reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(39 + 1 + 1 + 39 + 39, 6);
    const byRelation = new Map<number, number>();
    pool.relations.forEach((r, i) =>
      byRelation.set(r, (byRelation.get(r) ?? 0) + pool.standsFor[i]!),
    );
    expect(Object.fromEntries(byRelation)).toEqual({ 0: 39, 1: 39, 2: 2, 3: 39 });
    for (let i = 0; i < pool.heads.length; i++) {
      const [h, r] = [pool.heads[i]!, pool.relations[i]!];
      const step = r < 2 ? 2 * r : 2 * (r - 2) + 1;
      const [from, to] = g.range(h, step);
      expect(to).toBeGreaterThan(from);
    }
    // Each stratum sampled at least once, and no query twice.
    const keys = new Set(Array.from(pool.heads, (h, i) => `${h} ${pool.relations[i]}`));
    expect(keys.size).toBe(pool.heads.length);
  });

  it('one stratum: an even sample of all known queries, each standing for the same number', async () => {
    const pool = (await negativePool(await graph(), reverse, { size: 10, strata: 'one' }))!;
    expect(pool.heads).toHaveLength(10);
    expect(new Set(pool.standsFor)).toEqual(new Set([11.9]));
  });

  it('is undefined for an empty graph', async () => {
    const empty = await GraphIndex.build(
      3,
      1,
      new Int32Array(0),
      new Int32Array(0),
      new Int32Array(0),
      new EventLoopTurns(),
    );
    expect(await negativePool(empty, reverse)).toBeUndefined();
  });
});
