import { TripleSet } from '../../../../src/ingest/bulk';
import { seededRandom } from '../../../../src/seeded-random';

describe('TripleSet', () => {
  it('agrees with a Set of strings through growth and past one row chunk (2^20 rows)', () => {
    const random = seededRandom(5);
    const set = new TripleSet(16);
    const reference = new Set<string>();
    const draw = (n: number) => Math.floor(random() * n);
    let disagreements = 0;
    for (let i = 0; i < 1_300_000; i++) {
      // Small ranges so that about one draw in six repeats an earlier one.
      const [h, r, t] = [draw(1500), draw(7), draw(1500)];
      const key = `${h},${r},${t}`;
      if (set.add(h, r, t) === reference.has(key)) disagreements += 1;
      reference.add(key);
    }
    expect(disagreements).toBe(0);
    expect(set.size).toBe(reference.size);
    expect(set.size).toBeGreaterThan(1 << 20);
  });

  it('tells apart triples that share two of their three ids, and large ids', () => {
    const set = new TripleSet();
    const max = 2 ** 31 - 1;
    for (const [h, r, t] of [
      [0, 0, 0],
      [0, 0, 1],
      [0, 1, 0],
      [1, 0, 0],
      [max, 3, max],
      [max, 3, max - 1],
    ] as const) {
      expect(set.add(h, r, t)).toBe(true);
      expect(set.add(h, r, t)).toBe(false);
    }
    expect(set.size).toBe(6);
  });
});
