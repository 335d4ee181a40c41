import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../src/errors';
import { resolveTrainingConfig, Scorer, train } from '../../../src/model';
import { classGraph, writeDatasetDir } from '../../support/generated-graph';

const SMALL = {
  entityDim: 32,
  relationDim: 8,
  epochs: 30,
  evalEvery: 0,
  threads: 2,
  seed: 3,
};

describe('the approximate top-k index behind Scorer.topKBatchAsync', () => {
  let modelDir: string;

  beforeAll(async () => {
    modelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-ann-'));
    const datasetDir = writeDatasetDir(classGraph(300));
    await train({ dir: datasetDir }, resolveTrainingConfig('default', SMALL), { outDir: modelDir });
  });

  const queriesOf = (scorer: Scorer) => {
    const isA = scorer.relation('is_a');
    const similar = scorer.relation('similar_to');
    return Array.from({ length: 40 }, (_, i) => ({
      entity: scorer.entity(`e${(i * 37) % 300}`),
      relation: i % 2 ? isA : similar,
      direction: i % 3 === 0 ? ('head' as const) : ('tail' as const),
    }));
  };

  it('answers as the exact scan once built, exclusions kept, with progress reported', async () => {
    const scorer = Scorer.load(modelDir);
    const queries = queriesOf(scorer);
    const excludes = queries.map((q, i) => (i % 4 === 0 ? [q.entity, 1, 2, 3] : undefined));
    const exact = await scorer.topKBatchAsync(queries, 10, excludes);
    const reports: [number, number][] = [];
    await scorer.buildApproxIndex({
      connections: 16,
      buildWidth: 64,
      // As wide as the graph: every entity is reachable, so the answers are the exact ones.
      searchWidth: 400,
      onProgress: (done, total) => reports.push([done, total]),
      progressMs: 1,
    });
    expect(scorer.approximate).toBe(true);
    const approx = await scorer.topKBatchAsync(queries, 10, excludes);
    expect(approx.map((row) => row.map((r) => r.id))).toEqual(
      exact.map((row) => row.map((r) => r.id)),
    );
    approx.forEach((row, q) =>
      row.forEach((r, i) => expect(r.logit).toBeCloseTo(exact[q]![i]!.logit, 4)),
    );
    for (const [q, list] of excludes.entries())
      for (const r of approx[q]!) expect(list ?? []).not.toContain(r.index);
    for (const [done, total] of reports) {
      expect(total === 0 || total === scorer.entities.length).toBe(true);
      expect(done).toBeLessThanOrEqual(scorer.entities.length);
    }
  });

  it('serves entities appended after the build (fold-in) beside the index', async () => {
    const scorer = Scorer.load(modelDir);
    await scorer.buildApproxIndex({ connections: 16, buildWidth: 64, searchWidth: 400 });
    const query = { entity: scorer.entity('e5'), relation: scorer.relation('similar_to') };
    const best = (await scorer.topKBatchAsync([query], 1))[0]![0]!;
    // The best row scaled so that its logit doubles in size and is positive: it must come first.
    const scale = best.logit < 0 ? -2 : 2;
    const row = scorer.entityVectors([best.index])[0]!.map((v) => scale * v);
    const grown = scorer.withEntities(['newcomer'], Float32Array.from(row));
    expect(grown.approximate).toBe(true);
    const top = (await grown.topKBatchAsync([query], 3))[0]!;
    expect(top[0]?.id).toBe('newcomer');
    expect(top[1]?.id).toBe(best.id);
  });

  it('is not used when its graph leaves more than the allowed share of rows to the side scan', async () => {
    const scorer = Scorer.load(modelDir);
    const queries = queriesOf(scorer);
    const exact = await scorer.topKBatchAsync(queries, 10);
    // Two neighbours found two wide: a coarse graph that some rows cannot be reached through.
    const coarse = { connections: 2, buildWidth: 2, searchWidth: 64 };
    const refused = await scorer.buildApproxIndex({ ...coarse, maxSideScanShare: 0 });
    expect(refused.entities).toBe(scorer.entities.length);
    expect(refused.sideScanned).toBeGreaterThan(0);
    expect(refused.used).toBe(false);
    expect(scorer.approximate).toBe(false);
    expect(await scorer.topKBatchAsync(queries, 10)).toEqual(exact);

    const kept = await scorer.buildApproxIndex({ ...coarse, maxSideScanShare: 1 });
    expect(kept.used).toBe(true);
    expect(scorer.approximate).toBe(true);
  });

  it('an aborted build leaves the scorer exact', async () => {
    const scorer = Scorer.load(modelDir);
    const abort = new AbortController();
    abort.abort();
    await expect(
      scorer.buildApproxIndex({
        connections: 16,
        buildWidth: 64,
        searchWidth: 64,
        signal: abort.signal,
      }),
    ).rejects.toMatchObject({ code: ErrorCode.TRAINING_ABORTED });
    expect(scorer.approximate).toBe(false);
  });

  it('refuses connections out of range with a clear error', async () => {
    const scorer = Scorer.load(modelDir);
    await expect(
      scorer.buildApproxIndex({ connections: 300, buildWidth: 64, searchWidth: 64 }),
    ).rejects.toMatchObject({ code: ErrorCode.BAD_USER_INPUT, message: /connections/ });
  });
});
