import fs from 'node:fs';
import path from 'node:path';
import { Database, rejectPrediction } from '../../src/graph';
import { runRetrainJob } from '../../src/jobs/retrain-job';
import {
  dirRules,
  edgeRuleEvidence,
  loadServingModel,
  readCalibrationFile,
  withRuleEvidence,
} from '../../src/model';
import { calibratedProbability, edgeFeatures, edgeProbability } from '../../src/model/calibration';
import { loadVersionGraph } from '../../src/model/rules/version-graph';
import { readVersionInfo } from '../../src/model/store/version-info';
import { startServer } from '../../src/server/start-server';
import { firstVersion, TINY } from '../support/lifecycle';
import { gql, MIGRATIONS } from '../support/served-model';
import { runCli } from '../support/cli';
import { testDatabase, testTarget } from '../support/test-database';

jest.setTimeout(240_000);

interface Row {
  entity: { id: string };
  logit: number;
  probability: number;
}

const MISSING = `query($entity: String!, $relation: String!, $k: Int, $direction: Direction) {
  missingLinks(entity: $entity, relation: $relation, k: $k, direction: $direction) {
    entity { id } logit probability
  }
}`;

interface EdgeAnswer {
  logit: number;
  headLogit: number;
  probability: number;
}

const EDGES = `query($edges: [EdgeInput!]!) {
  edgeProbabilities(edges: $edges) { logit headLogit probability }
}`;

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** The version's served logits: its model's, plus its rules' evidence where it combines them. */
async function servedScorer(dir: string) {
  const served = await loadServingModel(dir);
  const scorer = served.scorer;
  const logits = served.combiner ? withRuleEvidence(scorer, served.combiner) : scorer;
  return {
    entities: scorer.entities,
    relations: scorer.relations,
    entity: (name: string) => scorer.entity(name),
    relation: (name: string) => scorer.relation(name),
    scoreTriples: (h: Uint32Array, r: Uint32Array, t: Uint32Array, d: 'tail' | 'head') =>
      logits.scoreTriples(h, r, t, d),
  };
}

describe('calibrated probabilities: retrain, serve, reject, retrain', () => {
  let db: Database;
  beforeAll(() => {
    db = testDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('a version carries its calibration, the API serves it, and a rejection becomes a negative', async () => {
    const { graph, scope, store, root, config, first } = await firstVersion(db);
    const dir = first.dir as string;
    expect(fs.existsSync(path.join(dir, 'reliability.svg'))).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'reliability.svg'), 'utf8')).toMatch(/^<svg/);
    const file = readCalibrationFile(dir);
    expect(file).not.toBeNull();
    expect(file!.fitMix.rejected).toBe(0);
    expect(file!.fitMix.positives).toBeGreaterThan(0);
    expect(file!.fitMix.range + file!.fitMix.uniform).toBeGreaterThan(0);
    const info = readVersionInfo(dir);
    expect(info.calibration?.after?.ece).toBeGreaterThanOrEqual(0);
    expect(info.calibration?.before?.logLoss).toBeGreaterThan(0);

    const target = testTarget();
    const show = runCli(['models', 'show', first.version as string], {
      NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
      KGC_MODEL_STORE: root,
      KGC_REGISTRY_SCOPE: scope,
    });
    expect(show.status).toBe(0);
    expect(show.stdout).toMatch(
      /calibration \(fitted on valid, measured on test, ECE over 15 bins\): ECE \d\.\d{4} -> \d\.\d{4}, Brier \d\.\d{4} -> \d\.\d{4}, log-loss \d\.\d{4} -> \d\.\d{4}/,
    );
    expect(show.stdout).toMatch(
      /edge probability \(both questions and the ends' counts, as edgeProbabilities\), against the tail question alone: ECE \d\.\d{4} -> \d\.\d{4}/,
    );

    const server = await startServer(config, { migrationsDir: MIGRATIONS, modelDir: dir });
    let rows: Row[] = [];
    try {
      for (const direction of ['TAIL', 'HEAD'] as const) {
        const entity = direction === 'TAIL' ? `${graph.prefix}:e3` : `${graph.prefix}:class1`;
        const relation =
          direction === 'TAIL' ? graph.filter.relations[1]! : graph.filter.relations[0]!;
        const result = await gql<{ missingLinks: Row[] }>(server.url, MISSING, {
          entity,
          relation,
          k: 10,
          direction,
        });
        expect(result.errors).toBeUndefined();
        const got = result.data!.missingLinks;
        expect(got.length).toBeGreaterThan(0);
        for (const row of got) {
          const expected = calibratedProbability(
            file!.table,
            relation,
            direction === 'TAIL' ? 'tail' : 'head',
            row.logit,
          );
          expect(row.probability).toBeCloseTo(expected, 6);
        }
        // Calibrated, not the sigmoid, and still in the logit's order.
        expect(got.some((r) => Math.abs(r.probability - sigmoid(r.logit)) > 1e-3)).toBe(true);
        for (let i = 1; i < got.length; i++)
          expect(got[i - 1]!.probability).toBeGreaterThanOrEqual(got[i]!.probability);
        // The served logits (the model's plus the rules' evidence where the version combines
        // them, as calibration scored them) are the ones missingLinks lists, in either direction.
        // (Whether this tiny version's combine step kept the rules depends on its training: the
        // served logits match either way; test/unit/resolvers/rule-ranking.test.ts pins a combiner.)
        const scorer = await servedScorer(dir);
        const ids = (names: string[]) => Uint32Array.from(names, (n) => scorer.entity(n));
        const others = ids(got.map((r) => r.entity.id));
        const fixed = ids(got.map(() => entity));
        const r = Uint32Array.from(got, () => scorer.relation(relation));
        const logits =
          direction === 'TAIL'
            ? scorer.scoreTriples(fixed, r, others, 'tail')
            : scorer.scoreTriples(others, r, fixed, 'head');
        got.forEach((row, i) => expect(logits[i]).toBeCloseTo(row.logit, 4));
        if (direction === 'TAIL') rows = got;
      }

      // edgeProbabilities: an edge's probability from both questions, by the edge calibrators.
      const [head, relation] = [`${graph.prefix}:e3`, graph.filter.relations[1]!];
      const edges = await gql<{ edgeProbabilities: EdgeAnswer[] }>(server.url, EDGES, {
        edges: rows.map((row) => ({ head, relation, tail: row.entity.id })),
      });
      expect(edges.errors).toBeUndefined();
      const scorer = await servedScorer(dir);
      const headLogits = scorer.scoreTriples(
        Uint32Array.from(rows, () => scorer.entity(head)),
        Uint32Array.from(rows, () => scorer.relation(relation)),
        Uint32Array.from(rows, (row) => scorer.entity(row.entity.id)),
        'head',
      );
      expect(file!.edge!.table.relations.length).toBeGreaterThan(0);
      expect(file!.edge!.table.features).toContain('tailRule');
      // The ends are counted in the version's graph (graph.bin), as serving counts them.
      const counted = await loadVersionGraph(dir, scorer);
      expect(counted).toBeDefined();
      // The rules that reach each end from the other, walked in the same graph.
      const { walker } = await dirRules(dir, scorer);
      expect(walker).toBeDefined();
      const evidence = await edgeRuleEvidence(
        walker!,
        rows.map(() => scorer.entity(head)),
        rows.map(() => scorer.relation(relation)),
        rows.map((row) => scorer.entity(row.entity.id)),
      );
      const probabilities = edges.data!.edgeProbabilities.map((answer, i) => {
        expect(answer.logit).toBeCloseTo(rows[i]!.logit, 4);
        expect(answer.headLogit).toBeCloseTo(headLogits[i]!, 4);
        const features = edgeFeatures(
          counted!,
          scorer.entity(head),
          scorer.relation(relation),
          scorer.entity(rows[i]!.entity.id),
          answer.logit,
          answer.headLogit,
          { tail: evidence.tail[i]!, head: evidence.head[i]! },
        );
        expect(answer.probability).toBeCloseTo(
          edgeProbability(file!.edge!.table, relation, features),
          6,
        );
        return answer.probability;
      });
      // Not the tail question's probability: the head question and the counts move it.
      expect(probabilities.some((p, i) => Math.abs(p - rows[i]!.probability) > 1e-3)).toBe(true);
    } finally {
      await server.stop();
    }

    // A reviewer rejects the top suggestion; the next version's calibration counts it (scored
    // in both directions) among its negatives, fitted on or measured on.
    const [head, relation] = [`${graph.prefix}:e3`, graph.filter.relations[1]!];
    await rejectPrediction(
      db,
      { head, relation, tail: rows[0]!.entity.id },
      { by: 'test', reason: 'wrong', score: null },
    );
    const second = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      overrides: TINY,
      force: true,
    });
    const next = readCalibrationFile(second.dir as string);
    expect(next!.fitMix.rejected + next!.measureMix.rejected).toBe(2);
    expect(next!.fitMix.rejectedNowKnown + next!.measureMix.rejectedNowKnown).toBe(0);
  });
});
