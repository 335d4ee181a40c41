import { canonical } from '../../../src/export';

/** Sorted distinct (h, r, t) by plain JS, the reference for both of canonical's sort paths. */
function reference(h: Int32Array, r: Int32Array, t: Int32Array): number[][] {
  const seen = new Set<string>();
  const out: number[][] = [];
  for (let i = 0; i < h.length; i++) {
    const row = [h[i] as number, r[i] as number, t[i] as number];
    const key = row.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(row);
  }
  return out.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!);
}

function randomColumns(n: number, r: number, m: number, seed: number) {
  let s = seed;
  const next = (k: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
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
  return { h, rel, t };
}

function rows(g: { heads: Int32Array; relations: Int32Array; tails: Int32Array }): number[][] {
  return Array.from(g.heads, (h, i) => [h, g.relations[i] as number, g.tails[i] as number]);
}

describe('canonical', () => {
  const { h, rel, t } = randomColumns(50, 7, 4000, 11);
  const expected = reference(h, rel, t);

  it('sorts by (head, relation, tail) and drops repeats (packed-key path)', () => {
    const entities = Array.from({ length: 50 }, (_, i) => `e${i}`);
    const relations = Array.from({ length: 7 }, (_, i) => `r${i}`);
    const g = canonical(entities, relations, h, rel, t);
    expect(rows(g)).toEqual(expected);
    expect(g.entities).toBe(entities);
  });

  it('gives the same order when the ids are too many to pack (comparator path)', () => {
    // A sparse vocabulary array: only its length matters to the choice of path.
    const entities = new Array<string>(2 ** 27);
    const relations = Array.from({ length: 7 }, (_, i) => `r${i}`);
    expect(rows(canonical(entities, relations, h, rel, t))).toEqual(expected);
  });

  it('handles an empty graph', () => {
    const empty = new Int32Array(0);
    const g = canonical([], [], empty, empty, empty);
    expect(g.heads.length).toBe(0);
  });
});
