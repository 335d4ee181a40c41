import { ErrorCode } from '../../../src/errors';
import { Database } from '../../../src/graph';
import {
  acquireLease,
  getActiveVersion,
  getLease,
  listTrainingRuns,
  listVersions,
  markInterruptedRuns,
  promoteVersion,
  rollbackVersion,
} from '../../../src/graph/registry';
import { runRetrainJob } from '../../../src/jobs/retrain-job';
import { firstVersion, lifecycleFixture, TINY, writeClassGraph } from '../../support/lifecycle';
import { testDatabase } from '../../support/test-database';

jest.setTimeout(240_000);

const LONG = { ...TINY, epochs: 100_000, evalEvery: 0 };

/** What another worker does when it finds the lease expired: expire it here, then acquire it. */
async function takeOver(db: Database, scope: string, holder: string): Promise<number> {
  for (let attempt = 0; attempt < 5; attempt++) {
    await db.write((tx) =>
      tx.run('MATCH (l:JobLease {scope: $scope}) SET l.expiresAt = timestamp() - 1', { scope }),
    );
    const taken = await acquireLease(db, { holder, ttlSeconds: 60 }, scope);
    if (taken.acquired) return taken.generation;
  }
  throw new Error('could not take the lease over');
}

async function runOf(db: Database, scope: string, runId: string) {
  const runs = (await listTrainingRuns(db, { first: 10 }, scope)).items;
  return runs.find((r) => r.id === runId);
}

describe('fenced promotion', () => {
  let db: Database;
  beforeAll(() => {
    db = testDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('a job whose lease was taken over before it promotes fails and promotes nothing', async () => {
    const { graph, scope, store, config, first } = await firstVersion(db);
    let runId = '';
    let usurped = 0;
    await expect(
      runRetrainJob(db, config, {
        scope,
        store,
        filter: graph.filter,
        overrides: TINY,
        force: true,
        onRunStarted: (run) => (runId = run.runId),
        beforePromote: async () => {
          usurped = await takeOver(db, scope, 'usurper');
          // As the job that took the lease would: the old job's run looks orphaned to it.
          await markInterruptedRuns(db, { reason: 'its job ended without finishing' }, scope);
        },
      }),
    ).rejects.toMatchObject({ code: ErrorCode.JOB_LEASE_LOST });
    expect((await getActiveVersion(db, scope))?.version).toBe(first.version);
    expect(await runOf(db, scope, runId)).toMatchObject({
      status: 'failed',
      errorCode: ErrorCode.JOB_LEASE_LOST,
      phase: 'gate',
      error: expect.stringMatching(/taken over \(now held by usurper/) as string,
    });
    const versions = await listVersions(db, scope);
    expect(versions.map((v) => v.status)).toEqual(['rejected', 'active']);
    // The failed job left the new holder's lease alone.
    expect(await getLease(db, scope)).toMatchObject({ holder: 'usurper' });
    expect(usurped).toBeGreaterThan(1);
  });

  it('a job that loses its lease while training stops and ends failed with the reason', async () => {
    const graph = await writeClassGraph(db, 60);
    const { scope, store, config } = lifecycleFixture();
    let runId = '';
    let epochs = 0;
    let takeover: Promise<number> | undefined;
    await expect(
      runRetrainJob(db, config, {
        scope,
        store,
        filter: graph.filter,
        overrides: LONG,
        leaseSeconds: 2,
        onRunStarted: (run) => (runId = run.runId),
        onProgress: (event) => {
          if (event.kind === 'epoch' && ++epochs === 2) takeover = takeOver(db, scope, 'usurper');
        },
      }),
    ).rejects.toMatchObject({ code: ErrorCode.JOB_LEASE_LOST });
    await takeover;
    expect(await runOf(db, scope, runId)).toMatchObject({
      status: 'failed',
      errorCode: ErrorCode.JOB_LEASE_LOST,
      phase: 'train',
      error: expect.stringMatching(/lost its lease: the lease expired and was taken/) as string,
    });
    expect(await getActiveVersion(db, scope)).toBeNull();
    expect(await listVersions(db, scope)).toEqual([]);
    expect(await getLease(db, scope)).toMatchObject({ holder: 'usurper' });
  });

  it("never undoes an operator's rollback or promote made while the job ran", async () => {
    const graph = await writeClassGraph(db, 60);
    const { scope, store, config } = lifecycleFixture();
    const job = { scope, store, filter: graph.filter, overrides: TINY, force: true };
    const v1 = await runRetrainJob(db, config, job);
    const v2 = await runRetrainJob(db, config, job);
    expect(v2.promoted).toBe(true);

    // The rollback lands between the gate and the promotion's transaction.
    let runId = '';
    const afterRollback = await runRetrainJob(db, config, {
      ...job,
      onRunStarted: (run) => (runId = run.runId),
      beforePromote: async () => {
        await rollbackVersion(db, scope);
      },
    });
    expect(afterRollback).toMatchObject({ status: 'rejected', promoted: false });
    expect(afterRollback.reason).toMatch(
      new RegExp(`active version changed .*from ${v2.version} to ${v1.version}`),
    );
    expect((await getActiveVersion(db, scope))?.version).toBe(v1.version);
    expect(await runOf(db, scope, runId)).toMatchObject({
      status: 'rejected',
      promoted: false,
      reason: afterRollback.reason,
    });

    // A manual promote while the job trains: the gate compares against the version active when
    // the job started, and the promotion finds it no longer active.
    let promoted: Promise<unknown> | undefined;
    const afterPromote = await runRetrainJob(db, config, {
      ...job,
      onPhase: (phase) => {
        if (phase === 'train') promoted = promoteVersion(db, v2.version as string, scope);
      },
    });
    await promoted;
    expect(afterPromote).toMatchObject({ status: 'rejected', promoted: false });
    expect(afterPromote.gate?.activeVersion).toBe(v1.version);
    expect(afterPromote.reason).toMatch(/active version changed/);
    expect((await getActiveVersion(db, scope))?.version).toBe(v2.version);
    const statuses = new Map((await listVersions(db, scope)).map((v) => [v.version, v.status]));
    expect(statuses.get(afterRollback.version as string)).toBe('rejected');
    expect(statuses.get(afterPromote.version as string)).toBe('rejected');
  });

  it('does not promote on zero comparable held-out edges, unless forced', async () => {
    const old = await writeClassGraph(db, 60);
    const fresh = await writeClassGraph(db, 60);
    const { scope, store, config } = lifecycleFixture();
    const v1 = await runRetrainJob(db, config, {
      scope,
      store,
      filter: old.filter,
      overrides: TINY,
    });
    // Every held-out edge of the new graph names entities and relations v1 never saw.
    const job = { scope, store, filter: fresh.filter, overrides: TINY };
    const refused = await runRetrainJob(db, config, job);
    expect(refused).toMatchObject({ status: 'rejected', promoted: false });
    expect(refused.gate).toMatchObject({ compared: 0, activeVersion: v1.version });
    expect(refused.gate?.leftOutUnknown).toBeGreaterThan(0);
    expect(refused.reason).toMatch(
      /no held-out edge could be compared .*not promoted without --force/,
    );
    expect((await getActiveVersion(db, scope))?.version).toBe(v1.version);
    expect(await runOf(db, scope, refused.runId)).toMatchObject({
      status: 'rejected',
      reason: refused.reason,
    });

    const forced = await runRetrainJob(db, config, { ...job, force: true });
    expect(forced).toMatchObject({ status: 'succeeded', promoted: true, reason: null });
    expect((await getActiveVersion(db, scope))?.version).toBe(forced.version);
    const record = (await listVersions(db, scope)).find((v) => v.version === forced.version);
    expect(record?.gate).toMatchObject({
      forced: true,
      overruled: expect.stringMatching(/no held-out edge/) as string,
    });
  });
});
