import {
  countingGraph,
  edgeFeatures,
  edgeProbability,
  fitEdgeCalibration,
  logLoss,
  servedEdgeProbability,
  servingCalibration,
  SHRINKAGE_PRIOR,
  sigmoid,
} from '../../../../src/model/calibration';
import type { CalibrationTable, EdgeFeatures } from '../../../../src/model/calibration';
import { EDGE_FEATURES_WITHOUT_RULES } from '../../../../src/model/calibration/edge-calibration';
import { edgeWeights } from '../../../../src/model/calibration/calibrate-model';
import { fitLogistic } from '../../../../src/model/calibration/logistic-regression';
import { seededRandom } from '../../../../src/seeded-random';

const random = seededRandom(5);
const gauss = () =>
  Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());

/**
 * n edges of one relation whose truth is drawn from sigmoid(3 * signal - 1 + 0.8 * log1p(tail
 * count) + 2.5 * ruled); the informative question's logit is the signal, the other's noise; with
 * `ruled`, a rule of confidence .8 reaches the tail of a third of the edges (the head: never).
 */
function relationSamples(n: number, informative: 'tail' | 'head', ruled = false) {
  const rows: (EdgeFeatures & { label: number })[] = [];
  for (let i = 0; i < n; i++) {
    const signal = gauss();
    const noise = 3 * gauss();
    const tailCount = Math.floor(random() * 30);
    const headCount = Math.floor(random() * 30);
    const tailRule = ruled && random() < 1 / 3 ? 0.8 : 0;
    const z = 3 * signal - 1 + 0.8 * Math.log1p(tailCount) + (tailRule ? 2.5 : 0);
    const label = random() < sigmoid(z) ? 1 : 0;
    rows.push({
      tailLogit: informative === 'tail' ? 3 * signal : noise,
      headLogit: informative === 'head' ? 3 * signal : noise,
      tailCount,
      headCount,
      tailRule,
      headRule: 0,
      label,
    });
  }
  return {
    rows,
    samples: {
      features: rows,
      labels: Uint8Array.from(rows, (r) => r.label),
      weights: new Float64Array(n).fill(1),
    },
  };
}

describe('logistic regression (Newton)', () => {
  it('recovers the coefficients that generated the labels', () => {
    const n = 40000;
    const rows = new Float64Array(n * 3);
    const labels = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const [a, b] = [gauss(), gauss()];
      rows.set([1, a, b], 3 * i);
      labels[i] = random() < sigmoid(-0.5 + 1.5 * a - 2 * b) ? 1 : 0;
    }
    const w = fitLogistic(rows, 3, labels, new Float64Array(n).fill(1));
    expect(w[0]).toBeCloseTo(-0.5, 1);
    expect(w[1]).toBeCloseTo(1.5, 1);
    expect(w[2]).toBeCloseTo(-2, 1);
  });

  it('stays at the optimum, finite, on small separable sets where a full Newton step overshoots', () => {
    // Small relations of a barely trained model: a few examples, uneven weights, features that
    // separate the labels; saturated sigmoids leave the ridge as the only curvature.
    const draw = seededRandom(11);
    const d = 7;
    const ridge = 1e-2;
    for (let set = 0; set < 200; set++) {
      const n = 2 + Math.floor(draw() * 30);
      const rows = new Float64Array(n * d);
      const labels = Uint8Array.from({ length: n }, (_, i) => i % 2);
      const weights = Float64Array.from({ length: n }, () => (draw() < 0.3 ? 1 / n : draw() * 50));
      const separated = draw() < 0.5;
      for (let i = 0; i < n; i++) {
        rows[i * d] = 1;
        for (let j = 1; j < d; j++) {
          const shift = separated && j === 1 ? (labels[i] ? 5 : -5) : 0;
          const rule = j > 4 && labels[i] && draw() < 0.5 ? 1 : 0;
          rows[i * d + j] = shift + (j > 4 ? rule : (draw() - 0.5) * 10);
        }
      }
      const w = fitLogistic(rows, d, labels, weights, ridge);
      // The penalized log-loss's gradient vanishes there (the intercept is not penalized).
      const gradient = new Float64Array(d);
      for (let i = 0; i < n; i++) {
        let z = 0;
        for (let j = 0; j < d; j++) z += w[j]! * rows[i * d + j]!;
        const residual = weights[i]! * (sigmoid(z) - labels[i]!);
        for (let j = 0; j < d; j++) gradient[j] = gradient[j]! + residual * rows[i * d + j]!;
      }
      for (let j = 1; j < d; j++) gradient[j] = gradient[j]! + ridge * w[j]!;
      const total = weights.reduce((a, b) => a + b, 0);
      for (let j = 0; j < d; j++) {
        expect(Math.abs(w[j]!)).toBeLessThan(1e3);
        expect(Math.abs(gradient[j]!)).toBeLessThan(1e-6 * total);
      }
    }
  });

  it('honours weights as repeated examples', () => {
    const once = Float64Array.of(1, -1, 1, 0, 1, 1, 1, 2);
    const repeated = Float64Array.of(1, -1, 1, 0, 1, 1, 1, 1, 1, 2);
    const a = fitLogistic(once, 2, [0, 1, 1, 0], [1, 1, 2, 1]);
    const b = fitLogistic(repeated, 2, [0, 1, 1, 1, 0], [1, 1, 1, 1, 1]);
    expect(a[0]).toBeCloseTo(b[0]!, 8);
    expect(a[1]).toBeCloseTo(b[1]!, 8);
  });
});

describe('edge calibration (both questions and the ends’ counts)', () => {
  const head = relationSamples(3000, 'head');
  const tail = relationSamples(3000, 'tail');
  const rare = relationSamples(12, 'tail');
  const table = fitEdgeCalibration([
    { relation: 'parentOf', samples: head.samples },
    { relation: 'bornIn', samples: tail.samples },
    { relation: 'rare', samples: rare.samples },
  ]);
  const own = (name: string) => table.relations.find((r) => r.relation === name)!;

  it('weighs whichever question knows the answer, per relation, and the tail count', () => {
    const [, tailWeight, headWeight, tailCountWeight] = own('parentOf').coefficients;
    expect(headWeight).toBeGreaterThan(0.7);
    expect(Math.abs(tailWeight!)).toBeLessThan(0.1);
    expect(tailCountWeight).toBeGreaterThan(0.5);
    expect(own('bornIn').coefficients[1]).toBeGreaterThan(0.7);
  });

  it('beats the tail question alone in held-out log-loss, and is calibrated', () => {
    const test = relationSamples(4000, 'head');
    const edge = test.rows.map((f) => edgeProbability(table, 'parentOf', f));
    const tailOnly = test.rows.map((f) => sigmoid(f.tailLogit));
    const labels = test.rows.map((f) => f.label);
    expect(logLoss(edge, labels)).toBeLessThan(logLoss(tailOnly, labels) - 0.2);
    const mean = edge.reduce((a, b) => a + b, 0) / edge.length;
    const observed = labels.reduce((a, b) => a + b, 0) / labels.length;
    expect(Math.abs(mean - observed)).toBeLessThan(0.03);
  });

  it('shrinks a relation toward the global regression by its held-out positives', () => {
    const r = own('rare');
    expect(r.weight).toBeCloseTo(r.positives / (r.positives + SHRINKAGE_PRIOR), 12);
    expect(own('parentOf').weight).toBeGreaterThan(0.95);
    const f = head.rows[0]!;
    expect(edgeProbability(table, 'unknown', f)).toBeCloseTo(
      1 /
        (1 +
          Math.exp(
            -(
              table.global.coefficients[0]! +
              table.global.coefficients[1]! * f.tailLogit +
              table.global.coefficients[2]! * f.headLogit +
              table.global.coefficients[3]! * Math.log1p(f.tailCount) +
              table.global.coefficients[4]! * Math.log1p(f.headCount)
            ),
          )),
      12,
    );
  });

  it('serves by the model relation ids; an older calibration answers with the tail calibrator', () => {
    const directions: CalibrationTable = {
      global: { kind: 'platt', a: 0.5, b: 0 },
      shrinkagePrior: SHRINKAGE_PRIOR,
      relations: [],
    };
    const names = ['bornIn', 'parentOf'];
    const f = { tailLogit: -2, headLogit: 3, tailCount: 4, headCount: 0, tailRule: 0, headRule: 0 };
    const serving = servingCalibration(directions, names, table);
    expect(servedEdgeProbability(serving, 1, f)).toBeCloseTo(
      edgeProbability(table, 'parentOf', f),
      12,
    );
    const older = servingCalibration(directions, names);
    expect(servedEdgeProbability(older, 1, f)).toBeCloseTo(sigmoid(0.5 * -2), 12);
  });
});

describe('edge calibration hearing the rules', () => {
  const ruled = relationSamples(4000, 'tail', true);
  const table = fitEdgeCalibration([{ relation: 'bornIn', samples: ruled.samples }]);

  it('weighs a rule that reaches the tail, and leaves a feature that never fires at 0', () => {
    const [, , , , , tailRule, headRule] = table.global.coefficients;
    // The labels add 2.5 where a rule of confidence .8 fires: about 3.1 per unit of confidence.
    expect(tailRule).toBeGreaterThan(2);
    expect(tailRule).toBeLessThan(4.5);
    expect(Math.abs(headRule!)).toBeLessThan(1e-6);
  });

  it('beats the same regression without the rules in held-out log-loss', () => {
    const blind = fitEdgeCalibration([
      {
        relation: 'bornIn',
        samples: {
          ...ruled.samples,
          features: ruled.rows.map((f) => ({ ...f, tailRule: 0 })),
        },
      },
    ]);
    const test = relationSamples(4000, 'tail', true);
    const labels = test.rows.map((f) => f.label);
    const hearing = test.rows.map((f) => edgeProbability(table, 'bornIn', f));
    const deaf = test.rows.map((f) => edgeProbability(blind, 'bornIn', { ...f, tailRule: 0 }));
    expect(logLoss(hearing, labels)).toBeLessThan(logLoss(deaf, labels) - 0.02);
  });

  it('serves a calibrator written before the rules were features as it was written', () => {
    const five = [0.1, 0.5, 0.25, 0.3, -0.2];
    const older = {
      features: EDGE_FEATURES_WITHOUT_RULES,
      global: { coefficients: five },
      relations: [],
    };
    const f = {
      tailLogit: 1,
      headLogit: -1,
      tailCount: 3,
      headCount: 0,
      tailRule: 0.9,
      headRule: 0.4,
    };
    const z = 0.1 + 0.5 * 1 + 0.25 * -1 + 0.3 * Math.log1p(3);
    expect(edgeProbability(older, 'any', f)).toBeCloseTo(sigmoid(z), 12);
  });
});

describe('an edge’s ends counted in a graph', () => {
  it('counts other edges of the relation at each end, never the edge itself', async () => {
    // Relation 0: 1->2, 3->2, 4->2, 1->5; relation 1: 1->2.
    const graph = await countingGraph(
      6,
      2,
      Uint32Array.of(1, 0, 2, 3, 0, 2, 4, 0, 2, 1, 0, 5, 1, 1, 2),
    );
    expect(edgeFeatures(graph, 1, 0, 2, 0.5, -0.5)).toEqual({
      tailLogit: 0.5,
      headLogit: -0.5,
      tailCount: 2,
      headCount: 1,
      tailRule: 0,
      headRule: 0,
    });
    expect(edgeFeatures(graph, 1, 0, 2, 0, 0, { tail: 0.7, head: 0.2 })).toMatchObject({
      tailRule: 0.7,
      headRule: 0.2,
    });
    // Not in the graph: every edge counts.
    expect(edgeFeatures(graph, 5, 0, 2, 0, 0)).toMatchObject({ tailCount: 3, headCount: 0 });
    expect(edgeFeatures(graph, 3, 1, 2, 0, 0)).toMatchObject({ tailCount: 1, headCount: 0 });
    // An entity the graph does not have (folded in later) counts nothing.
    expect(edgeFeatures(graph, 9, 0, 2, 0, 0)).toMatchObject({ tailCount: 3, headCount: 0 });
    expect(edgeFeatures(graph, 1, 0, 9, 0, 0)).toMatchObject({ tailCount: 0, headCount: 2 });
  });
});

describe('edge examples’ weights', () => {
  it('balances positives and negatives 1:1, sampled and known-false alike', () => {
    const labels = Uint8Array.of(1, 1, 0, 0, 0, 0);
    const weights = edgeWeights(labels, [false, false, true, false, false, false]);
    expect(Array.from(weights)).toEqual([1, 1, 0.5, 0.5, 0.5, 0.5]);
  });

  it('weighs a relation with enough known-false edges against those alone', () => {
    const known = SHRINKAGE_PRIOR;
    const labels = Uint8Array.from([...Array(50).fill(1), ...Array(known + 40).fill(0)]);
    const rejected = Array.from(labels, (l, i) => !l && i < 50 + known);
    const weights = edgeWeights(labels, rejected);
    expect(weights[0]).toBe(1);
    expect(weights[50]).toBeCloseTo(50 / known, 12);
    expect(weights[50 + known]).toBe(0);
    // One fewer: the known-false edges join the sampled corruptions.
    const fewer = edgeWeights(
      labels,
      Array.from(rejected, (r, i) => r && i > 50),
    );
    expect(fewer[51]).toBeCloseTo(50 / (known + 40), 12);
    expect(fewer[50 + known]).toBeCloseTo(50 / (known + 40), 12);
  });
});
