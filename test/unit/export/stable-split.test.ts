import {
  canonical,
  changedKeys,
  fingerprint,
  heldOutRate,
  sortedKeys,
  stableSplit,
  tripleKeys,
  type DenseGraph,
} from '../../../src/export';

type Triple = [string, string, string];

/** A DenseGraph from named triples, as the export builds it (sorted vocabularies). */
function dense(triples: Triple[]): DenseGraph {
  const entities = [...new Set(triples.flatMap(([h, , t]) => [h, t]))].sort();
  const relations = [...new Set(triples.map(([, r]) => r))].sort();
  const e = new Map(entities.map((x, i) => [x, i]));
  const r = new Map(relations.map((x, i) => [x, i]));
  return canonical(
    entities,
    relations,
    Int32Array.from(triples, ([h]) => e.get(h) as number),
    Int32Array.from(triples, ([, rel]) => r.get(rel) as number),
    Int32Array.from(triples, ([, , t]) => e.get(t) as number),
  );
}

/** Dense random-ish triples over `n` entities: every entity has many edges. */
function graphTriples(n: number, perEntity: number, offset = 0): Triple[] {
  const out: Triple[] = [];
  for (let i = offset; i < offset + n; i++) {
    for (let k = 1; k <= perEntity; k++) {
      out.push([`e${i}`, `r${k % 5}`, `e${(i * 7 + k * 13) % (offset + n)}`]);
    }
  }
  return out;
}

/** Each triple's part, by name. */
function parts(graph: DenseGraph, split: ReturnType<typeof stableSplit>): Map<string, string> {
  const name = (i: number) =>
    `${graph.entities[graph.heads[i] as number]}|${graph.relationNames[graph.relations[i] as number]}|${graph.entities[graph.tails[i] as number]}`;
  const out = new Map<string, string>();
  for (const [part, indexes] of [
    ['train', split.train],
    ['valid', split.valid],
    ['test', split.test],
  ] as const) {
    for (const i of indexes) out.set(name(i), part);
  }
  return out;
}

const OPTIONS = { seed: 5, heldOutFraction: 0.05, maxHeldOut: 20_000 };

describe('the stable split', () => {
  const graph = dense(graphTriples(400, 12));

  it('is a pure function of the triples and the seed', () => {
    const a = stableSplit(graph, tripleKeys(graph), OPTIONS);
    const b = stableSplit(dense([...graphTriples(400, 12)].reverse()), tripleKeys(graph), OPTIONS);
    expect(parts(graph, a)).toEqual(parts(graph, b));
    const other = stableSplit(graph, tripleKeys(graph), { ...OPTIONS, seed: 6 });
    expect(parts(graph, other)).not.toEqual(parts(graph, a));
  });

  it('holds out a few percent, split between valid and test', () => {
    const split = stableSplit(graph, tripleKeys(graph), OPTIONS);
    const n = graph.heads.length;
    const heldOut = split.valid.length + split.test.length;
    expect(heldOut / n).toBeGreaterThan(0.03);
    expect(heldOut / n).toBeLessThan(0.07);
    expect(split.valid.length).toBeGreaterThan(0);
    expect(split.test.length).toBeGreaterThan(0);
    expect(split.train.length + heldOut).toBe(n);
  });

  it('keeps every existing edge in its part when edges are added', () => {
    const before = parts(graph, stableSplit(graph, tripleKeys(graph), OPTIONS));
    const grown = dense([...graphTriples(400, 12), ...graphTriples(100, 12, 400)]);
    const after = parts(grown, stableSplit(grown, tripleKeys(grown), OPTIONS));
    let same = 0;
    for (const [triple, part] of before) if (after.get(triple) === part) same++;
    // Only coverage moves may differ (none here: every entity has a dozen edges).
    expect(same).toBe(before.size);
  });

  it('never holds out the only edge of an entity or relation', () => {
    const triples: Triple[] = [...graphTriples(200, 10)];
    for (let i = 0; i < 300; i++) triples.push([`lonely${i}`, `solo${i}`, `e${i}`]);
    const g = dense(triples);
    const split = stableSplit(g, tripleKeys(g), { ...OPTIONS, heldOutFraction: 0.3 });
    const inTrain = new Set<number>();
    const relInTrain = new Set<number>();
    for (const i of split.train) {
      inTrain.add(g.heads[i] as number).add(g.tails[i] as number);
      relInTrain.add(g.relations[i] as number);
    }
    for (const i of [...split.valid, ...split.test]) {
      expect(inTrain.has(g.heads[i] as number)).toBe(true);
      expect(inTrain.has(g.tails[i] as number)).toBe(true);
      expect(relInTrain.has(g.relations[i] as number)).toBe(true);
    }
    expect(split.movedToTrain).toBeGreaterThan(0);
  });

  it('caps held-out edges on large graphs by halving the rate, so held-out sets nest', () => {
    expect(heldOutRate(100_000, OPTIONS)).toBe(0.05);
    expect(heldOutRate(400_000, OPTIONS)).toBe(0.05);
    expect(heldOutRate(400_001, OPTIONS)).toBe(0.025);
    expect(heldOutRate(10_000_000, OPTIONS) * 10_000_000).toBeLessThanOrEqual(20_000);
    const capped = { ...OPTIONS, maxHeldOut: 100 };
    const big = stableSplit(graph, tripleKeys(graph), capped);
    const small = stableSplit(graph, tripleKeys(graph), OPTIONS);
    expect(big.valid.length + big.test.length).toBeLessThanOrEqual(150);
    const smallHeldOut = new Set([...small.valid, ...small.test]);
    for (const i of [...big.valid, ...big.test]) expect(smallHeldOut.has(i)).toBe(true);
  });

  it('fingerprints the set of edges and counts changes between snapshots', () => {
    const keys = sortedKeys(tripleKeys(graph).keys);
    const same = dense([...graphTriples(400, 12)].reverse());
    expect(fingerprint(sortedKeys(tripleKeys(same).keys))).toBe(fingerprint(keys));
    const changed = dense([...graphTriples(400, 12).slice(3), ['x', 'r1', 'y']]);
    const changedSorted = sortedKeys(tripleKeys(changed).keys);
    expect(fingerprint(changedSorted)).not.toBe(fingerprint(keys));
    expect(changedKeys(keys, changedSorted)).toBe(4);
  });
});
