import {
  chooseCombiner,
  COMBINER_GRID,
  meanReciprocalRank,
  MIN_GROUP_QUERIES,
  MODEL_ALONE,
  PLAIN_FLOATS,
  PLAIN_KEPT,
  plainCompetitors,
  plainKept,
  rankUnder,
  settingFor,
  type CombinerQuery,
  type CombinerSetting,
} from '../../../../src/model/rules/rule-combiner';
import { seededRandom } from '../../../../src/seeded-random';

/** A query's candidates written out in full: logit, max, noisy-or, and whether it is the answer. */
interface Candidate {
  logit: number;
  max: number;
  noisyOr: number;
}

function reduce(group: string, answer: Candidate, others: Candidate[]): CombinerQuery {
  const reached = others.filter((c) => c.max > 0);
  return {
    group,
    logit: answer.logit,
    max: answer.max,
    noisyOr: answer.noisyOr,
    ...plainCompetitors(
      Float32Array.from(
        others.filter((c) => c.max === 0 && c.logit >= answer.logit).map((c) => c.logit),
      ),
    ),
    reached: Float32Array.from(reached.flatMap((c) => [c.logit, c.max, c.noisyOr])),
  };
}

/** The answer's rank scoring every candidate in full (ties count half). */
function bruteRank(answer: Candidate, others: Candidate[], s: CombinerSetting): number {
  const score = (c: Candidate) => Math.fround(c.logit) + s.w * Math.fround(c[s.aggregate]);
  const a = score(answer);
  const above = others.filter((c) => score(c) > a).length;
  const equal = others.filter((c) => score(c) === a).length;
  return 1 + above + equal / 2;
}

function randomCandidate(random: () => number, ruleShare: number): Candidate {
  const logit = Math.round((random() * 10 - 5) * 4) / 4;
  if (random() >= ruleShare) return { logit, max: 0, noisyOr: 0 };
  const max = Math.round(random() * 8) / 8 || 0.125;
  return { logit, max, noisyOr: Math.min(1, max + Math.round(random() * 2) / 8) };
}

describe('the rule combiner', () => {
  it('ranks the answer as scoring every candidate with logit + w · evidence does', () => {
    const random = seededRandom(5);
    for (let trial = 0; trial < 200; trial++) {
      const answer = randomCandidate(random, 0.5);
      const others = Array.from({ length: 40 }, () => randomCandidate(random, 0.3));
      const q = reduce('r\ttail', answer, others);
      for (const s of COMBINER_GRID) {
        expect(rankUnder(q, s)).toBe(bruteRank(answer, others, s));
      }
    }
  });

  it('keeps the top plain competitors of a deep answer: exact where it rises past them, within 1/PLAIN_KEPT below', () => {
    const random = seededRandom(9);
    for (let trial = 0; trial < 20; trial++) {
      const answer = { logit: -5, max: 0.5, noisyOr: 0.75 };
      // The answer ranks thousands deep by the model; the rules can lift it anywhere.
      const others = Array.from({ length: PLAIN_KEPT + 500 + trial * 37 }, () => {
        const c = randomCandidate(random, 0.01);
        return { ...c, logit: c.logit + (random() < 0.5 ? 0 : 0.125) };
      });
      const q = reduce('r\ttail', answer, others);
      expect(q.plain.length).toBe(PLAIN_KEPT);
      expect(q.plainRest).toBeGreaterThan(0);
      for (const s of [...COMBINER_GRID, { aggregate: 'max' as const, w: 1000 }]) {
        const exact = bruteRank(answer, others, s);
        const served = answer.logit + s.w * answer[s.aggregate];
        if (served > (q.plain[0] as number)) expect(rankUnder(q, s)).toBe(exact);
        else {
          expect(rankUnder(q, s)).toBeGreaterThanOrEqual(exact);
          expect(1 / exact - 1 / rankUnder(q, s)).toBeLessThan(1 / PLAIN_KEPT);
        }
      }
    }
  });

  it('keeps the largest PLAIN_KEPT plain logits ascending, ties included, as a full sort does', () => {
    const random = seededRandom(5);
    for (const length of [10, PLAIN_KEPT, PLAIN_KEPT + 1, 3 * PLAIN_KEPT + 17]) {
      // Quarter steps: many ties, some across the cut.
      const logits = Float32Array.from({ length }, () => Math.round(random() * 400) / 4);
      const sorted = Float32Array.from(logits).sort();
      const { plain, plainRest } = plainCompetitors(Float32Array.from(logits));
      expect(plainRest).toBe(Math.max(0, length - PLAIN_KEPT));
      expect(Array.from(plain)).toEqual(Array.from(sorted.subarray(plainRest)));
    }
  });

  it('keeps fewer plain logits a query in a larger fit: every query within PLAIN_FLOATS, never under 1,024', () => {
    expect(plainKept(1)).toBe(PLAIN_KEPT);
    expect(plainKept(10_000)).toBe(PLAIN_KEPT);
    for (const queries of [10_001, 35_070, 40_000]) {
      const kept = plainKept(queries);
      expect(kept).toBeLessThan(PLAIN_KEPT);
      expect(kept * queries).toBeLessThanOrEqual(PLAIN_FLOATS);
      expect((kept + 1) * queries).toBeGreaterThan(PLAIN_FLOATS);
    }
    expect(plainKept(1_000_000)).toBe(1024);
    const logits = Float32Array.from({ length: 5000 }, (_, i) => i);
    const { plain, plainRest } = plainCompetitors(logits, 1500);
    expect([plain.length, plainRest, plain[0]]).toEqual([1500, 3500, 3500]);
  });

  it('keeps the model alone where the rules point away from the answers', () => {
    const random = seededRandom(8);
    const qs = Array.from({ length: 100 }, () => {
      const answer = { logit: 1, max: 0, noisyOr: 0 };
      // A decoy the rules like, just below the answer.
      const decoy = { logit: 0.5, max: 0.9, noisyOr: 0.9 };
      return reduce('r\ttail', answer, [decoy, randomCandidate(random, 0)]);
    });
    const chosen = chooseCombiner(qs);
    expect(chosen.global).toEqual(MODEL_ALONE);
    expect(settingFor(chosen, 'r\ttail')).toEqual(MODEL_ALONE);
  });

  it('gives a relation its own setting where it has enough queries, the global one elsewhere', () => {
    const helped = Array.from({ length: MIN_GROUP_QUERIES }, () =>
      // The rules reach the answer, which the model puts second.
      reduce('good\ttail', { logit: 0, max: 0.8, noisyOr: 0.8 }, [
        { logit: 0.3, max: 0, noisyOr: 0 },
      ]),
    );
    const hurt = Array.from({ length: 3 * MIN_GROUP_QUERIES }, () =>
      reduce('bad\ttail', { logit: 1, max: 0, noisyOr: 0 }, [
        { logit: 0.9, max: 0.8, noisyOr: 0.8 },
      ]),
    );
    const few = Array.from({ length: MIN_GROUP_QUERIES - 1 }, () =>
      reduce('few\thead', { logit: 0, max: 0.8, noisyOr: 0.8 }, [
        { logit: 0.3, max: 0, noisyOr: 0 },
      ]),
    );
    const chosen = chooseCombiner([...helped, ...hurt, ...few]);
    expect(chosen.global).toEqual(MODEL_ALONE);
    expect(settingFor(chosen, 'good\ttail').w).toBeGreaterThan(0);
    expect(settingFor(chosen, 'bad\ttail')).toEqual(MODEL_ALONE);
    expect(Object.keys(chosen.groups).sort()).toEqual(['bad\ttail', 'good\ttail']);
    expect(meanReciprocalRank(helped, (q) => settingFor(chosen, q.group))).toBe(1);
    expect(meanReciprocalRank(helped, () => MODEL_ALONE)).toBe(0.5);
  });
});
