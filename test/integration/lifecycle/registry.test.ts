import { ErrorCode } from '../../../src/errors';
import { Database } from '../../../src/graph';
import {
  acquireLease,
  finishTrainingRun,
  getActiveVersion,
  getLease,
  listTrainingRuns,
  listVersions,
  markInterruptedRuns,
  pendingRetrainRequests,
  promoteVersion,
  registerVersion,
  releaseLease,
  renewLease,
  requestRetraining,
  rollbackVersion,
  startTrainingRun,
  updateRunProgress,
} from '../../../src/graph/registry';
import { testDatabase, uniqueId } from '../../support/test-database';

async function register(db: Database, scope: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const version = uniqueId(`v${i}`);
    await registerVersion(
      db,
      {
        version,
        dir: `/nowhere/${version}`,
        trigger: 'test',
        metrics: { overall: { mrr: i / 10 } },
        testMrr: i / 10,
        triples: 10,
        entities: 5,
        relations: 1,
        fingerprint: 'f',
      },
      scope,
    );
    ids.push(version);
  }
  return ids;
}

describe('the model registry', () => {
  let db: Database;
  beforeAll(() => {
    db = testDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('keeps exactly one version active under concurrent promotions', async () => {
    const scope = uniqueId('scope');
    const ids = await register(db, scope, 6);
    expect(await getActiveVersion(db, scope)).toBeNull();
    await Promise.all(ids.map((id) => promoteVersion(db, id, scope)));
    const versions = await listVersions(db, scope);
    expect(versions.filter((v) => v.active)).toHaveLength(1);
    expect(versions.filter((v) => v.status === 'retired')).toHaveLength(5);
    const active = await getActiveVersion(db, scope);
    expect(ids).toContain(active?.version);
    // The promotions form one chain: each promoted version remembers the one before it.
    const previous = versions.map((v) => v.previousActive).filter((p) => p !== null);
    expect(new Set(previous).size).toBe(5);
    // The database refuses a second active version even if a query tried to make one.
    await expect(
      db.write((tx) =>
        tx.run(
          'MATCH (m:ModelVersion {scope: $scope}) WHERE NOT m.id = $id SET m.activeScope = $scope',
          { scope, id: active?.version },
        ),
      ),
    ).rejects.toMatchObject({ code: ErrorCode.CONSTRAINT_VIOLATION });
  });

  it('rolls back to the previously active version, step by step', async () => {
    const scope = uniqueId('scope');
    const [a, b, c] = (await register(db, scope, 3)) as [string, string, string];
    await expect(rollbackVersion(db, scope)).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await promoteVersion(db, a, scope);
    await promoteVersion(db, b, scope);
    expect(await promoteVersion(db, c, scope)).toEqual({ version: c, previous: b });
    expect(await rollbackVersion(db, scope)).toEqual({ version: b, previous: c });
    expect((await getActiveVersion(db, scope))?.version).toBe(b);
    expect(await rollbackVersion(db, scope)).toEqual({ version: a, previous: b });
    await expect(rollbackVersion(db, scope)).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
      message: expect.stringMatching(/first active version/),
    });
    await expect(promoteVersion(db, 'no-such-version', scope)).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
    const statuses = Object.fromEntries(
      (await listVersions(db, scope)).map((v) => [v.version, v.status]),
    );
    expect(statuses).toEqual({ [a]: 'active', [b]: 'retired', [c]: 'retired' });
  });

  it('pages training runs newest first with a cursor', async () => {
    const scope = uniqueId('scope');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = uniqueId(`run${i}`);
      await startTrainingRun(db, { id, trigger: 'test', holder: 'h' }, scope);
      ids.push(id);
    }
    await finishTrainingRun(db, ids[0] as string, {
      status: 'succeeded',
      timings: { export: 1.5 },
      candidateMrr: 0.5,
    });
    const seen: string[] = [];
    let after: string | null = null;
    const pages: boolean[] = [];
    do {
      const page = await listTrainingRuns(db, { first: 2, after }, scope);
      seen.push(...page.items.map((r) => r.id));
      pages.push(page.hasMore);
      after = page.hasMore ? page.endCursor : null;
    } while (after);
    expect(pages).toEqual([true, true, false]);
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(seen).toHaveLength(5);
    const all = (await listTrainingRuns(db, { first: 10 }, scope)).items;
    for (let i = 1; i < all.length; i++) {
      expect(
        (all[i - 1] as { startedAt: string }).startedAt >=
          (all[i] as { startedAt: string }).startedAt,
      ).toBe(true);
    }
    const first = all.find((r) => r.id === ids[0]);
    expect(first).toMatchObject({
      status: 'succeeded',
      timings: { export: 1.5 },
      candidateMrr: 0.5,
    });
    expect(first?.endedAt).not.toBeNull();
    expect(await markInterruptedRuns(db, { reason: 'test' }, scope)).toBe(4);
    await expect(listTrainingRuns(db, { first: 2, after: 'garbage' }, scope)).rejects.toMatchObject(
      {
        code: ErrorCode.BAD_USER_INPUT,
      },
    );
  });

  it('never lets a progress write that waits on the end of a run land after it', async () => {
    const scope = uniqueId('scope');
    const id = uniqueId('run');
    await startTrainingRun(db, { id, trigger: 'test', holder: 'h' }, scope);
    // The run ends in a transaction that holds its node's lock while the progress write waits.
    const session = db.openSession('WRITE');
    const ending = session.beginTransaction();
    try {
      await ending.run(
        `MATCH (t:TrainingRun {id: $id})
         SET t.status = 'interrupted', t.phase = 'train', t.endedAt = timestamp()`,
        { id },
      );
      const progress = updateRunProgress(db, id, { phase: 'split', epoch: 7 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await ending.commit();
      await progress;
    } finally {
      await session.close();
    }
    const [run] = (await listTrainingRuns(db, { first: 1 }, scope)).items;
    expect(run).toMatchObject({ id, status: 'interrupted', phase: 'train' });
    expect(run?.epoch ?? null).toBeNull();
  });

  it('lets one holder have the lease until it releases it or it expires', async () => {
    const scope = uniqueId('scope');
    expect((await acquireLease(db, { holder: 'a', ttlSeconds: 60 }, scope)).acquired).toBe(true);
    const refused = await acquireLease(db, { holder: 'b', ttlSeconds: 60 }, scope);
    expect(refused).toMatchObject({ acquired: false, holder: 'a' });
    await releaseLease(db, 'a', scope);
    expect((await acquireLease(db, { holder: 'b', ttlSeconds: 1 }, scope)).acquired).toBe(true);
    expect((await getLease(db, scope)).holder).toBe('b');
    await new Promise((resolve) => setTimeout(resolve, 1200));
    // b died without releasing: its lease expired, c takes over, b can no longer renew.
    expect((await getLease(db, scope)).holder).toBeNull();
    expect((await acquireLease(db, { holder: 'c', ttlSeconds: 60 }, scope)).acquired).toBe(true);
    expect(await renewLease(db, { holder: 'b', ttlSeconds: 60 }, scope)).toBe(false);
    expect(await renewLease(db, { holder: 'c', ttlSeconds: 60, runId: 'r1' }, scope)).toBe(true);
    expect(await getLease(db, scope)).toMatchObject({ holder: 'c', runId: 'r1' });
  });

  it('gives the lease to one of many simultaneous acquirers', async () => {
    const scope = uniqueId('scope');
    const holders = Array.from({ length: 8 }, (_, i) => `h${i}`);
    const attempts = await Promise.all(
      holders.map((holder) => acquireLease(db, { holder, ttlSeconds: 60 }, scope)),
    );
    expect(attempts.filter((a) => a.acquired)).toHaveLength(1);
  });

  it('records retraining requests, which the next run consumes', async () => {
    const scope = uniqueId('scope');
    const request = await requestRetraining(db, { requestedBy: 'admin' }, scope);
    expect(request.id).toMatch(/^req-/);
    expect(Date.parse(request.requestedAt)).not.toBeNaN();
    await requestRetraining(db, { requestedBy: 'admin' }, scope);
    expect(await pendingRetrainRequests(db, scope)).toBe(2);
    const started = await startTrainingRun(
      db,
      { id: uniqueId('run'), trigger: 'request', holder: 'h' },
      scope,
    );
    expect(started.requestsConsumed).toBe(2);
    expect(await pendingRetrainRequests(db, scope)).toBe(0);
  });
});
