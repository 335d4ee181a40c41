import fs from 'node:fs';
import { Database } from '../../../src/graph';
import { getActiveVersion, listTrainingRuns, listVersions } from '../../../src/graph/registry';
import { runRetrainJob } from '../../../src/jobs/retrain-job';
import { lifecycleFixture, TINY, writeClassGraph } from '../../support/lifecycle';
import { testDatabase } from '../../support/test-database';

jest.setTimeout(180_000);

describe('the retraining job', () => {
  let db: Database;
  beforeAll(() => {
    db = testDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('promotes the first version, then rejects a worse one with both scores', async () => {
    const graph = await writeClassGraph(db, 80);
    const { scope, store, config } = lifecycleFixture();
    const split = { heldOutFraction: 0.2 };
    const t0 = Date.now();
    const first = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: TINY,
    });
    console.log(
      'first',
      Date.now() - t0,
      JSON.stringify({ ...first, metrics: first.metrics?.overall }),
    );
    expect(first.promoted).toBe(true);
    expect(first.status).toBe('succeeded');
    expect(await getActiveVersion(db, scope)).toEqual({ version: first.version, dir: first.dir });
    for (const file of [
      'manifest.json',
      'model.safetensors',
      'version.json',
      'metrics.json',
      'training-curve.svg',
    ]) {
      expect(fs.existsSync(`${first.dir}/${file}`)).toBe(true);
    }

    const worse = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      split,
      overrides: { ...TINY, epochs: 1, evalEvery: 0 },
    });
    console.log('worse', JSON.stringify({ ...worse, metrics: worse.metrics?.overall }));
    expect(worse.promoted).toBe(false);
    expect(worse.status).toBe('rejected');
    expect(worse.candidateMrr).toBeLessThan(worse.activeMrr as number);
    expect((await getActiveVersion(db, scope))?.version).toBe(first.version);
    const versions = await listVersions(db, scope);
    expect(versions.map((v) => [v.version, v.status])).toEqual([
      [worse.version, 'rejected'],
      [first.version, 'active'],
    ]);
    const runs = await listTrainingRuns(db, { first: 10 }, scope);
    expect(runs.items.map((r) => r.status)).toEqual(['rejected', 'succeeded']);
  });
});
