import { gateSample } from '../../../src/jobs/promotion-gate';
import { seededRandom } from '../../../src/seeded-random';

describe("the gate's sample of a large held-out set", () => {
  const random = seededRandom(3);
  const keys = Float64Array.from({ length: 1200 }, () => Math.floor(random() * 2 ** 48));
  const comparable = Array.from({ length: 600 }, (_, i) => 2 * i + (i % 3 === 0 ? 1 : 0));

  it('keeps every edge up to the bound', () => {
    expect(gateSample(comparable, keys, 600)).toBe(comparable);
  });

  it('keeps the edges with the smallest keys, in triple order, whatever order they came in', () => {
    const sample = gateSample(comparable, keys, 100);
    expect(sample).toHaveLength(100);
    expect(sample).toEqual([...sample].sort((a, b) => a - b));
    const cut = Math.max(...sample.map((i) => keys[i] as number));
    const below = comparable.filter((i) => (keys[i] as number) <= cut);
    expect(new Set(sample)).toEqual(new Set(below));
    expect(gateSample([...comparable].reverse(), keys, 100)).toEqual(sample);
  });
});
