import { EventLoopTurns } from '../../../../src/event-loop-turns';
import { GraphIndex } from '../../../../src/model/rules/graph-index';
import { rulePaths, stepNeighbours } from '../../../../src/model/rules/rule-paths';
import type { PathSearchLimits } from '../../../../src/model/rules/rule-paths';
import { seededRandom } from '../../../../src/seeded-random';

type Triple = [number, number, number];

async function indexOf(nodes: number, relations: number, triples: Triple[]): Promise<GraphIndex> {
  return GraphIndex.build(
    nodes,
    relations,
    Int32Array.from(triples, (t) => t[0]),
    Int32Array.from(triples, (t) => t[1]),
    Int32Array.from(triples, (t) => t[2]),
    new EventLoopTurns(),
  );
}

/** Whether a walks to b by step (2r: edge (a, r, b); 2r + 1: edge (b, r, a)). */
function joined(triples: Triple[], a: number, step: number, b: number): boolean {
  const r = step >> 1;
  return triples.some(
    ([h, rel, t]) => rel === r && (step & 1 ? h === b && t === a : h === a && t === b),
  );
}

function degree(triples: Triple[], node: number): number {
  return triples.reduce((n, [h, , t]) => n + (h === node ? 1 : 0) + (t === node ? 1 : 0), 0);
}

/** Every instance of the body from x to y through distinct nodes, by enumerating all node tuples. */
function bruteForce(
  nodes: number,
  triples: Triple[],
  x: number,
  y: number,
  steps: number[],
  hub = Infinity,
): string[] {
  const out: string[] = [];
  const middles = steps.length - 1;
  const tuple = (prefix: number[]): void => {
    if (prefix.length === middles) {
      const path = [x, ...prefix, y];
      if (new Set(path).size !== path.length) return;
      if (steps.length === 3 && prefix.some((z) => degree(triples, z) > hub)) return;
      if (steps.every((s, i) => joined(triples, path[i]!, s, path[i + 1]!))) out.push(path.join());
      return;
    }
    for (let z = 0; z < nodes; z++) tuple([...prefix, z]);
  };
  tuple([]);
  return out.sort();
}

function randomGraph(seed: number, nodes: number, relations: number, edges: number): Triple[] {
  const random = seededRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const seen = new Set<string>();
  const triples: Triple[] = [];
  while (triples.length < edges) {
    const t: Triple = [pick(nodes), pick(relations), pick(nodes)];
    if (seen.has(t.join())) continue;
    seen.add(t.join());
    triples.push(t);
  }
  return triples;
}

const ALL: PathSearchLimits = { perRule: Infinity, hub: Infinity, budget: Infinity };

describe('rulePaths', () => {
  it('finds exactly the brute-force instances of bodies of 1 to 3 steps (random graphs)', async () => {
    let compared = 0;
    let nonEmpty = 0;
    for (const seed of [1, 2, 3]) {
      const nodes = 9;
      const relations = 2;
      const triples = randomGraph(seed, nodes, relations, 30);
      const index = await indexOf(nodes, relations, triples);
      const random = seededRandom(seed + 100);
      for (let q = 0; q < 60; q++) {
        const x = Math.floor(random() * nodes);
        const y = Math.floor(random() * nodes);
        const length = 1 + (q % 3);
        const steps = Array.from({ length }, () => Math.floor(random() * 2 * relations));
        const found = rulePaths(index, x, y, steps, ALL).map((p) => p.join());
        expect(found.sort()).toEqual(bruteForce(nodes, triples, x, y, steps));
        expect(new Set(found).size).toBe(found.length);
        compared++;
        if (found.length > 0) nonEmpty++;
      }
    }
    expect(compared).toBe(180);
    // The comparison means something only if many queries have paths.
    expect(nonEmpty).toBeGreaterThan(30);
  });

  it('walks edges backwards for inverse steps and never revisits a node', async () => {
    // 0 -r0-> 1, 2 -r0-> 1, 1 -r1-> 0: body r0 . r0^-1 from 0 to 2 is 0 -> 1 <- 2.
    const index = await indexOf(3, 2, [
      [0, 0, 1],
      [2, 0, 1],
      [1, 1, 0],
    ]);
    expect(rulePaths(index, 0, 2, [0, 1], ALL)).toEqual([[0, 1, 2]]);
    expect(rulePaths(index, 2, 0, [0, 1], ALL)).toEqual([[2, 1, 0]]);
    // 0 -r0-> 1 -r1-> 0 would close a cycle: not a path from 0 to 0, nor through 0 twice.
    expect(rulePaths(index, 0, 0, [0, 2], ALL)).toEqual([]);
    // 0 -r0-> 1 -r0^-1-> 0 -r0-> 1: revisits 0 and 1, so no 3-step path from 0 to 1.
    expect(rulePaths(index, 0, 1, [0, 1, 0], ALL)).toEqual([]);
    expect(rulePaths(index, 0, 1, [0], ALL)).toEqual([[0, 1]]);
    expect(rulePaths(index, 1, 0, [0], ALL)).toEqual([]);
    expect(rulePaths(index, 1, 0, [1], ALL)).toEqual([[1, 0]]);
  });

  it('stops at perRule paths, each a real instance', async () => {
    // x = 0 reaches y = 1 through 2..11 by r0 . r0.
    const triples: Triple[] = [];
    for (let z = 2; z < 12; z++) triples.push([0, 0, z], [z, 0, 1]);
    const index = await indexOf(12, 1, triples);
    const all = bruteForce(12, triples, 0, 1, [0, 0]);
    expect(all).toHaveLength(10);
    for (const perRule of [1, 3]) {
      const found = rulePaths(index, 0, 1, [0, 0], { ...ALL, perRule });
      expect(found).toHaveLength(perRule);
      for (const path of found) expect(all).toContain(path.join());
    }
  });

  it('skips middle nodes of 3-step paths above the hub bound, from either end', async () => {
    // 0 -a-> 2 -b-> 3 -c-> 1 and 0 -a-> 4 -b-> 5 -c-> 1; node 4 also has 8 more edges (a hub).
    const triples: Triple[] = [
      [0, 0, 2],
      [2, 1, 3],
      [3, 2, 1],
      [0, 0, 4],
      [4, 1, 5],
      [5, 2, 1],
    ];
    for (let leaf = 6; leaf < 14; leaf++) triples.push([4, 1, leaf]);
    const index = await indexOf(14, 3, triples);
    const steps = [0, 2, 4];
    expect(rulePaths(index, 0, 1, steps, ALL).map((p) => p.join())).toEqual(['0,2,3,1', '0,4,5,1']);
    const bounded = { ...ALL, hub: 5 };
    expect(rulePaths(index, 0, 1, steps, bounded)).toEqual([[0, 2, 3, 1]]);
    expect(bruteForce(14, triples, 0, 1, steps, 5)).toEqual(['0,2,3,1']);
    // The same paths when the search starts from y's side (y has fewer neighbours there).
    for (let extra = 14; extra < 20; extra++) triples.push([0, 0, extra]);
    const wide = await indexOf(20, 3, triples);
    expect(rulePaths(wide, 0, 1, steps, bounded)).toEqual([[0, 2, 3, 1]]);
    expect(
      rulePaths(wide, 0, 1, steps, ALL)
        .map((p) => p.join())
        .sort(),
    ).toEqual(['0,2,3,1', '0,4,5,1']);
    // A hub at the second middle node (5, next to y) is skipped too.
    const hubNextToY: Triple[] = triples.slice(0, 6);
    for (let leaf = 6; leaf < 14; leaf++) hubNextToY.push([leaf, 0, 5]);
    const late = await indexOf(14, 3, hubNextToY);
    expect(rulePaths(late, 0, 1, steps, ALL)).toHaveLength(2);
    expect(rulePaths(late, 0, 1, steps, bounded)).toEqual([[0, 2, 3, 1]]);
    expect(bruteForce(14, hubNextToY, 0, 1, steps, 5)).toEqual(['0,2,3,1']);
  });

  it('gives up after its budget of index entries (a cut search finds fewer paths)', async () => {
    const triples: Triple[] = [];
    for (let z = 2; z < 402; z++) triples.push([0, 0, z], [z, 0, 1]);
    const index = await indexOf(402, 1, triples);
    expect(rulePaths(index, 0, 1, [0, 0], { ...ALL, budget: 50 }).length).toBeLessThan(50);
    expect(rulePaths(index, 0, 1, [0, 0], ALL)).toHaveLength(400);
  });
});

describe('stepNeighbours', () => {
  it("lists the other ends of a node's edges by one step, ascending, up to a limit", async () => {
    const index = await indexOf(6, 2, [
      [0, 0, 3],
      [0, 0, 1],
      [0, 1, 2],
      [4, 0, 0],
      [0, 0, 0],
      [5, 0, 0],
    ]);
    expect(stepNeighbours(index, 0, 0, 10)).toEqual([1, 3]);
    expect(stepNeighbours(index, 0, 1, 10)).toEqual([4, 5]);
    expect(stepNeighbours(index, 0, 0, 1)).toEqual([1]);
    expect(stepNeighbours(index, 0, 2, 10)).toEqual([2]);
  });
});
