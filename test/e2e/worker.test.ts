import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../../src/graph';
import { getLease, listTrainingRuns, requestRetraining } from '../../src/graph/registry';
import type { TrainingRunRecord } from '../../src/graph/registry';
import { logMessages, startCli, waitFor } from '../support/cli-process';
import { runCli } from '../support/cli';
import { writeClassGraph } from '../support/lifecycle';
import { testDatabase, testTarget, uniqueId } from '../support/test-database';

jest.setTimeout(240_000);

const QUICK = ['--epochs', '5', '--eval-every', '0', '--threads', '1'];
const ENDLESS = ['--epochs', '100000', '--eval-every', '0', '--threads', '1'];

describe('kgc worker', () => {
  let db: Database;
  let relations: string;
  beforeAll(async () => {
    db = testDatabase();
    relations = (await writeClassGraph(db, 60)).filter.relations.join(',');
  });
  afterAll(async () => {
    await db.close();
  });

  /** A fresh registry scope and store for one test. */
  function workerEnv(extra: Record<string, string> = {}) {
    const target = testTarget();
    const scope = uniqueId('scope');
    const store = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-worker-store-'));
    return {
      scope,
      store,
      env: {
        NEO4J_URI: target.uri,
        NEO4J_USER: target.user,
        NEO4J_PASSWORD: target.password,
        KGC_MODEL_STORE: store,
        KGC_REGISTRY_SCOPE: scope,
        KGC_RETRAIN_RELATIONS: relations,
        KGC_RETRAIN_POLL_SECONDS: '1',
        ...extra,
      },
    };
  }

  const runs = async (scope: string) => (await listTrainingRuns(db, { first: 50 }, scope)).items;

  it('runs the job on a one-second schedule, one at a time, and stops on SIGTERM', async () => {
    const { scope, env } = workerEnv({ KGC_RETRAIN_CRON: '* * * * * *' });
    const worker = startCli(['worker', ...QUICK], env);
    try {
      const ended = await waitFor(
        async () => {
          const done = (await runs(scope)).filter((r) => r.endedAt !== null);
          return done.length >= 2 ? done : undefined;
        },
        90_000,
        'two scheduled runs',
      );
      expect(ended.every((r) => r.trigger === 'schedule')).toBe(true);
      expect(ended.map((r) => r.status)).toEqual(expect.arrayContaining(['succeeded']));
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(logMessages(worker.output())).toMatch(/worker: started: schedule "\* \* \* \* \* \*"/);
    expect(logMessages(worker.output())).toMatch(/worker: stopped/);
    expect(logMessages(worker.output())).toMatch(/job: phase=train\n/);
    expect(logMessages(worker.output())).toMatch(/job: epoch=5\/5 loss=/);
    // One job at a time: the runs never overlap.
    const all = (await runs(scope)).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    for (let i = 1; i < all.length; i++) {
      const previous = all[i - 1] as TrainingRunRecord;
      expect(previous.endedAt).not.toBeNull();
      expect(Date.parse((all[i] as TrainingRunRecord).startedAt)).toBeGreaterThanOrEqual(
        Date.parse(previous.endedAt as string),
      );
    }
  });

  it('runs the job when a retraining request arrives', async () => {
    const { scope, env } = workerEnv();
    const worker = startCli(['worker', ...QUICK], env);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await runs(scope)).toHaveLength(0);
      await requestRetraining(db, { requestedBy: 'test' }, scope);
      const run = await waitFor(
        async () => (await runs(scope)).find((r) => r.endedAt !== null),
        60_000,
        'the requested run',
      );
      expect(run).toMatchObject({ trigger: 'request', status: 'succeeded' });
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect((await worker.exited).code).toBe(0);
  });

  it('with --train-if-empty trains at once when no version is active', async () => {
    const { scope, env } = workerEnv();
    const worker = startCli(['worker', '--train-if-empty', ...QUICK], env);
    try {
      const run = await waitFor(
        async () => (await runs(scope)).find((r) => r.endedAt !== null),
        60_000,
        'the initial run',
      );
      expect(run).toMatchObject({ trigger: 'initial', status: 'succeeded' });
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect((await worker.exited).code).toBe(0);
  });

  it('on SIGTERM mid-training stops the child and marks its run interrupted', async () => {
    const { scope, store, env } = workerEnv();
    const worker = startCli(['worker', ...ENDLESS], env);
    await requestRetraining(db, { requestedBy: 'test' }, scope);
    await waitFor(
      async () => ((await runs(scope))[0]?.epoch ?? 0) >= 1 || undefined,
      60_000,
      'training to start',
    );
    const stoppedAt = Date.now();
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - stoppedAt).toBeLessThan(20_000);
    const [run] = await runs(scope);
    expect(run).toMatchObject({ status: 'interrupted', trigger: 'request' });
    expect(fs.readdirSync(store)).toEqual([]);
    expect((await getLease(db, scope)).holder).toBeNull();
  });

  it('a killed `kgc train` leaves a running run and a temp dir, which the next job cleans', async () => {
    const { scope, store, env } = workerEnv({ KGC_JOB_LEASE_SECONDS: '2' });
    const train = startCli(['train', ...ENDLESS], env);
    await waitFor(
      async () => ((await runs(scope))[0]?.epoch ?? 0) >= 1 || undefined,
      60_000,
      'training to start',
    );
    train.child.kill('SIGKILL');
    await train.exited;
    expect((await runs(scope))[0]?.status).toBe('running');
    expect(fs.readdirSync(store).filter((n) => n.startsWith('.tmp-'))).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const next = runCli(['train', ...QUICK, '--json'], env, 120_000);
    expect(next.status).toBe(0);
    expect(next.stderr).toMatch(/1 run\(s\) marked interrupted, 1 temp dir\(s\) removed/);
    const [latest, killed] = await runs(scope);
    expect(latest?.status).toBe('succeeded');
    expect(killed?.status).toBe('interrupted');
    expect(fs.readdirSync(store).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });
});
