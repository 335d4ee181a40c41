import { CanaryHarm } from '../../../../src/model/fold-in/canary-harm';
import { seededRandom } from '../../../../src/seeded-random';

describe("the canary's harm and its standard error", () => {
  it('are the mean loss per question and sqrt(n s^2) / Q over edges, through overwrites', () => {
    const [edges, questions] = [50, 100];
    const tally = new CanaryHarm(edges, questions);
    const drops = new Array<number>(edges).fill(0);
    const next = seededRandom(3);
    // Each edge set a few times, as rows are counted in one after another.
    for (let k = 0; k < 400; k++) {
      const e = Math.floor(next() * edges);
      drops[e] = next() < 0.7 ? 0 : next() * 1.5;
      tally.set(e, drops[e] as number);
    }
    const sum = drops.reduce((a, b) => a + b, 0);
    const mean = sum / edges;
    const s2 = drops.reduce((a, d) => a + (d - mean) ** 2, 0) / (edges - 1);
    expect(tally.harm).toBeCloseTo(sum / questions, 12);
    expect(tally.standardError).toBeCloseTo(Math.sqrt(edges * s2) / questions, 12);
    expect(tally.standardError).toBeGreaterThan(0);
  });

  it('has no error while no edge has lost anything, nor with a single edge', () => {
    expect(new CanaryHarm(10, 20).standardError).toBe(0);
    const one = new CanaryHarm(1, 2);
    one.set(0, 0.5);
    expect(one.harm).toBeCloseTo(0.25, 12);
    expect(one.standardError).toBe(0);
  });
});
