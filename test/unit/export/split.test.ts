import { canonical, splitTriples, type DenseGraph } from '../../../src/export';

/** A random graph over `n` entities and `r` relations, `m` edges (duplicates dropped). */
function randomGraph(n: number, r: number, m: number, seed: number): DenseGraph {
  let s = seed;
  const next = (k: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0; // exact 32-bit LCG
    return (s >>> 8) % k;
  };
  const h = new Int32Array(m);
  const rel = new Int32Array(m);
  const t = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    h[i] = next(n);
    rel[i] = next(r);
    t[i] = next(n);
  }
  const names = (k: number, p: string) =>
    Array.from({ length: k }, (_, i) => `${p}${String(i).padStart(5, '0')}`);
  return canonical(names(n, 'e'), names(r, 'r'), h, rel, t);
}

describe('splitTriples', () => {
  const graph = randomGraph(300, 12, 5000, 7);
  const options = { seed: 42, validFraction: 0.1, testFraction: 0.1 };

  it('is deterministic for a seed and changes with it', () => {
    const a = splitTriples(graph, options);
    const b = splitTriples(graph, options);
    expect(Array.from(a.test)).toEqual(Array.from(b.test));
    expect(Array.from(a.valid)).toEqual(Array.from(b.valid));
    const c = splitTriples(graph, { ...options, seed: 43 });
    expect(Array.from(c.test)).not.toEqual(Array.from(a.test));
  });

  it('partitions the triples with the asked sizes', () => {
    const { train, valid, test } = splitTriples(graph, options);
    const n = graph.heads.length;
    expect(train.length + valid.length + test.length).toBe(n);
    expect(new Set([...train, ...valid, ...test]).size).toBe(n);
    expect(valid.length).toBe(Math.round(0.1 * n));
    expect(test.length).toBe(Math.round(0.1 * n));
  });

  it('keeps every valid/test entity and relation in train', () => {
    const { train, valid, test } = splitTriples(graph, options);
    const entities = new Set<number>();
    const relations = new Set<number>();
    for (const i of train) {
      entities.add(graph.heads[i] as number).add(graph.tails[i] as number);
      relations.add(graph.relations[i] as number);
    }
    for (const i of [...valid, ...test]) {
      expect(entities.has(graph.heads[i] as number)).toBe(true);
      expect(entities.has(graph.tails[i] as number)).toBe(true);
      expect(relations.has(graph.relations[i] as number)).toBe(true);
    }
  });

  it('canonical sorts and dedupes triples', () => {
    const g = canonical(
      ['a', 'b'],
      ['r'],
      Int32Array.of(1, 0, 1),
      Int32Array.of(0, 0, 0),
      Int32Array.of(0, 1, 0),
    );
    expect(Array.from(g.heads)).toEqual([0, 1]);
    expect(Array.from(g.tails)).toEqual([1, 0]);
  });
});
