import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../../../src/errors';
import { Database } from '../../../src/graph';
import {
  acquireLease,
  getActiveVersion,
  getLease,
  listTrainingRuns,
  listVersions,
  startTrainingRun,
} from '../../../src/graph/registry';
import { runRetrainJob } from '../../../src/jobs/retrain-job';
import { firstVersion, lifecycleFixture, TINY, writeClassGraph } from '../../support/lifecycle';
import { TcpProxy } from '../../support/tcp-proxy';
import { testDatabase, testTarget, uniqueId } from '../../support/test-database';

jest.setTimeout(180_000);

const LONG = { ...TINY, epochs: 100_000, evalEvery: 0 };

describe('the retraining job when things go wrong', () => {
  let db: Database;
  beforeAll(() => {
    db = testDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('leaves the active version and the registry consistent when aborted mid-training', async () => {
    const { graph, scope, store, config, first } = await firstVersion(db);
    const controller = new AbortController();
    let epochs = 0;
    await expect(
      runRetrainJob(db, config, {
        scope,
        store,
        filter: graph.filter,
        overrides: LONG,
        signal: controller.signal,
        onProgress: (event) => {
          if (event.kind === 'epoch' && ++epochs === 2) controller.abort();
        },
      }),
    ).rejects.toMatchObject({ code: ErrorCode.TRAINING_ABORTED });
    expect((await getActiveVersion(db, scope))?.version).toBe(first.version);
    expect((await listVersions(db, scope)).map((v) => v.version)).toEqual([first.version]);
    expect(store.list()).toEqual([first.version]);
    expect(fs.readdirSync(store.root).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    const runs = (await listTrainingRuns(db, { first: 5 }, scope)).items;
    expect(runs[0]).toMatchObject({
      status: 'interrupted',
      errorCode: ErrorCode.TRAINING_ABORTED,
      phase: 'train',
    });
    expect(runs[0]?.timings?.train).toBeGreaterThan(0);
    expect((await getLease(db, scope)).holder).toBeNull();
  });

  it('cleans up after a job whose process died: orphan run, temp dir, expired lease', async () => {
    const graph = await writeClassGraph(db, 60);
    const { scope, store, config } = lifecycleFixture();
    const deadPid = spawnSync(
      process.execPath,
      ['-e', 'process.stdout.write(String(process.pid))'],
      {
        encoding: 'utf8',
      },
    ).stdout;
    const orphanDir = path.join(store.root, `.tmp-${store.newVersionId()}-${deadPid}`);
    fs.mkdirSync(orphanDir, { recursive: true });
    fs.writeFileSync(path.join(orphanDir, 'model.safetensors'), 'half written');
    const orphan = uniqueId('run');
    await startTrainingRun(db, { id: orphan, trigger: 'schedule', holder: 'dead' }, scope);
    await acquireLease(db, { holder: 'dead', ttlSeconds: 1 }, scope);
    await expect(
      runRetrainJob(db, config, { scope, store, filter: graph.filter, overrides: TINY }),
    ).rejects.toMatchObject({ code: ErrorCode.JOB_LOCKED });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const result = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      overrides: TINY,
    });
    expect(result.promoted).toBe(true);
    expect(fs.existsSync(orphanDir)).toBe(false);
    const runs = (await listTrainingRuns(db, { first: 5 }, scope)).items;
    expect(runs.find((r) => r.id === orphan)).toMatchObject({ status: 'interrupted' });
    expect(runs.find((r) => r.id === result.runId)).toMatchObject({ status: 'succeeded' });
  });

  it('never trains two jobs at once: the second finds the lease held', async () => {
    const graph = await writeClassGraph(db, 60);
    const { scope, store, config } = lifecycleFixture();
    const outcomes = await Promise.allSettled([
      runRetrainJob(db, config, { scope, store, filter: graph.filter, overrides: TINY }),
      runRetrainJob(db, config, { scope, store, filter: graph.filter, overrides: TINY }),
    ]);
    const failed = outcomes.filter((o) => o.status === 'rejected');
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(failed).toHaveLength(1);
    expect((failed[0] as PromiseRejectedResult).reason).toMatchObject({
      code: ErrorCode.JOB_LOCKED,
    });
    expect((await listTrainingRuns(db, { first: 5 }, scope)).items).toHaveLength(1);
  });

  it('fails the run with DATABASE_UNAVAILABLE when Neo4j goes away mid-export', async () => {
    const graph = await writeClassGraph(db, 60);
    const { scope, store, config } = lifecycleFixture();
    const target = testTarget();
    const { proxy, uri } = await TcpProxy.start(target.uri);
    const flaky = new Database({ ...target, uri }, { maxRetrySeconds: 5, connectTimeoutMs: 2000 });
    try {
      await expect(
        runRetrainJob(flaky, config, {
          scope,
          store,
          filter: graph.filter,
          overrides: TINY,
          onPhase: (phase) => {
            if (phase === 'export') proxy.outage(1500);
          },
        }),
      ).rejects.toMatchObject({ code: ErrorCode.DATABASE_UNAVAILABLE });
    } finally {
      await flaky.close();
      await proxy.close();
    }
    const runs = (await listTrainingRuns(db, { first: 5 }, scope)).items;
    expect(runs[0]).toMatchObject({
      status: 'failed',
      errorCode: ErrorCode.DATABASE_UNAVAILABLE,
      phase: 'export',
    });
    expect(await getActiveVersion(db, scope)).toBeNull();
    expect(store.list()).toEqual([]);
    // The next tick retries and succeeds.
    const retry = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      overrides: TINY,
    });
    expect(retry.promoted).toBe(true);
  });

  it('promotes over an active version whose files are gone, and says why', async () => {
    const { graph, scope, store, config, first } = await firstVersion(db);
    fs.rmSync(first.dir as string, { recursive: true });
    const second = await runRetrainJob(db, config, {
      scope,
      store,
      filter: graph.filter,
      overrides: { ...TINY, epochs: 1 },
    });
    expect(second.promoted).toBe(true);
    expect(second.gate?.activeInvalid).toMatch(/does not exist/);
    expect((await getActiveVersion(db, scope))?.version).toBe(second.version);
  });
});
