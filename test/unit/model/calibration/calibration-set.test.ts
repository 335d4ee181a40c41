import {
  buildCalibrationSet,
  calibrate,
  calibratedProbability,
  negativeKeys,
  sigmoid,
  tripleKey,
} from '../../../../src/model/calibration';
import type { TripleScorer } from '../../../../src/model/calibration';
import type { Direction } from '../../../../src/direction';
import { seededRandom } from '../../../../src/seeded-random';

const N = 60;
const R = 2;

/** Relation 0 maps entity e to e + 30 (range: 30..59); relation 1 maps e to (e + 1) % 30. */
function graph(): Uint32Array {
  const ids: number[] = [];
  for (let e = 0; e < 30; e++) ids.push(e, 0, e + 30, e, 1, (e + 1) % 30);
  return Uint32Array.from(ids);
}

function keys(flat: Uint32Array): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < flat.length; i += 3)
    out.add(tripleKey(flat[i]!, flat[i + 1]!, flat[i + 2]!, R, N));
  return out;
}

describe('the calibration set', () => {
  const known = graph();
  const positives = known.slice(0, 30); // 5 edges of each relation
  const rejected = Uint32Array.of(0, 0, 35, 2, 1, 9);

  it('holds both directions of each positive and rejection, one corruption per positive, never a known edge', () => {
    const set = buildCalibrationSet({
      entities: N,
      relations: R,
      known,
      positives,
      rejected,
      seed: 4,
    });
    expect(set.mix).toMatchObject({ positives: 20, rejected: 4, rejectedNowKnown: 0 });
    expect(set.mix.range + set.mix.uniform).toBe(20);
    // Alternating, and range draws only fail over to uniform when the range is used up.
    expect(set.mix.range + set.mix.rangeExhausted).toBe(10);
    const knownKeys = keys(known);
    for (let i = 0; i < set.labels.length; i++) {
      const k = tripleKey(set.heads[i]!, set.relations[i]!, set.tails[i]!, R, N);
      expect(knownKeys.has(k)).toBe(set.labels[i] === 1);
      if (set.sources[i] === 2) {
        // A range corruption of relation 0 replaces the tail with one of 30..59 (tail direction)
        // or the head with one of 0..29 (head direction).
        if (set.relations[i] === 0 && set.directions[i] === 0)
          expect(set.tails[i]).toBeGreaterThanOrEqual(30);
        if (set.relations[i] === 0 && set.directions[i] === 1)
          expect(set.heads[i]).toBeLessThan(30);
      }
    }
  });

  it('weighs negatives so each (relation, direction) is 1:1, and is seeded', () => {
    const set = buildCalibrationSet({
      entities: N,
      relations: R,
      known,
      positives,
      rejected,
      seed: 4,
    });
    for (const group of [0, 1, 2, 3]) {
      let p = 0;
      let n = 0;
      set.labels.forEach((l, i) => {
        if (set.relations[i]! * 2 + set.directions[i]! !== group) return;
        if (l) p += set.weights[i]!;
        else n += set.weights[i]!;
      });
      expect(n).toBeCloseTo(p, 12);
    }
    const again = buildCalibrationSet({
      entities: N,
      relations: R,
      known,
      positives,
      rejected,
      seed: 4,
    });
    expect(again.tails).toEqual(set.tails);
    expect(again.heads).toEqual(set.heads);
  });

  it('never reuses an excluded negative and drops rejections that are edges now', () => {
    const first = buildCalibrationSet({
      entities: N,
      relations: R,
      known,
      positives,
      rejected: new Uint32Array(0),
      seed: 1,
    });
    const exclude = negativeKeys(first, R, N);
    const second = buildCalibrationSet({
      entities: N,
      relations: R,
      known,
      positives,
      rejected: Uint32Array.of(0, 0, 30),
      exclude,
      seed: 1,
    });
    expect(second.mix.rejectedNowKnown).toBe(1);
    for (const k of negativeKeys(second, R, N)) expect(exclude.has(k)).toBe(false);
  });
});

describe('calibrate (fit on one set, measure on another)', () => {
  // A fake model whose logit overstates confidence 3x: the true probability is sigmoid(z / 3).
  // True edges get a logit drawn from the label, so calibration has something to fix.
  const random = seededRandom(9);
  const trueLogit = new Map<number, number>();
  const logitOf = (h: number, r: number, t: number, label: boolean) => {
    const k = tripleKey(h, r, t, R, N);
    if (!trueLogit.has(k)) trueLogit.set(k, (label ? 1.5 : -1.5) * 3 + (random() - 0.5) * 12);
    return trueLogit.get(k) as number;
  };
  const known = graph();
  const knownKeys = keys(known);
  const scorer: TripleScorer = {
    entities: Array.from({ length: N }, (_, i) => `e${i}`),
    relations: ['r0', 'r1'],
    scoreTriples: (h, r, t, _d: Direction) =>
      Float32Array.from(h, (_, i) =>
        logitOf(h[i]!, r[i]!, t[i]!, knownKeys.has(tripleKey(h[i]!, r[i]!, t[i]!, R, N))),
      ),
  };

  it('improves log-loss over the sigmoid on held-out examples and keeps the ranking', async () => {
    const file = await calibrate(scorer, {
      known,
      fit: { name: 'valid', positives: known, negatives: Uint32Array.of(0, 0, 35) },
      measure: { name: 'test', positives: known, negatives: new Uint32Array(0) },
      seed: 3,
    });
    expect(file).not.toBeNull();
    expect(file!.fitMix.rejected).toBe(2);
    expect(file!.after!.logLoss).toBeLessThan(file!.before!.logLoss);
    expect(file!.perRelation).toHaveLength(4);
    for (let z = -10; z < 10; z += 0.5) {
      expect(calibratedProbability(file!.table, 'r0', 'tail', z + 0.5)).toBeGreaterThanOrEqual(
        calibratedProbability(file!.table, 'r0', 'tail', z),
      );
    }
    // Edges are calibrated from both questions and their ends' counts too (here both questions
    // give the same logit, so about as well as the tail calibrator on the same held-out edges).
    expect(file!.edge!.table.relations.map((r) => r.relation)).toEqual(['r0', 'r1']);
    expect(file!.edge!.after!.logLoss).toBeLessThan(file!.edge!.tailOnly!.logLoss + 0.05);
    expect(file!.edge!.tailOnly!.count).toBe(file!.edge!.after!.count);
    // An unknown relation gets the global calibrator, not the sigmoid.
    expect(calibratedProbability(file!.table, 'nope', 'tail', 6)).not.toBeCloseTo(sigmoid(6), 3);
  });

  it('returns null when there is nothing to fit on', async () => {
    const empty = new Uint32Array(0);
    expect(
      await calibrate(scorer, {
        known,
        fit: { name: 'valid', positives: empty, negatives: empty },
        measure: { name: 'test', positives: known, negatives: empty },
        seed: 1,
      }),
    ).toBeNull();
  });
});
