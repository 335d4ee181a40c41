import { SortedLogits } from '../../../src/model/sorted-logits';
import { seededRandom } from '../../../src/seeded-random';

/** The count a rank adds for `logits` against `h`, by the definition: above 1, equal 1/2. */
function scanAbove(logits: Float32Array, h: number): number {
  let above = 0;
  for (const v of logits) above += v > h ? 1 : v === h ? 0.5 : 0;
  return above;
}

describe('SortedLogits', () => {
  it('counts the logits above and half the equal ones as a scan does, ties and zeros included', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 50; round++) {
      // Few distinct values, so that many are tied; -0 beside 0.
      const logits = Float32Array.from({ length: 1 + Math.floor(random() * 40) }, () => {
        const v = Math.round(random() * 8 - 4) / 2;
        return v === 0 && random() < 0.5 ? -0 : v;
      });
      const sorted = SortedLogits.of(logits);
      expect(sorted?.size).toBe(logits.length);
      for (const h of [...logits, -10, 10, 0.25, -0]) {
        expect(sorted?.above(h)).toBe(scanAbove(logits, h));
      }
    }
  });

  it('leaves its input as it was', () => {
    const logits = Float32Array.of(3, 1, 2);
    SortedLogits.of(logits);
    expect(Array.from(logits)).toEqual([3, 1, 2]);
  });

  it('counts nothing in no logits, and refuses a NaN', () => {
    expect(SortedLogits.of(new Float32Array(0))?.above(1)).toBe(0);
    expect(SortedLogits.of(Float32Array.of(1, NaN, 2))).toBeUndefined();
  });
});
