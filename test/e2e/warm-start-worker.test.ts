import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../../src/graph';
import { listTrainingRuns, requestRetraining } from '../../src/graph/registry';
import { logMessages, startCli, waitFor } from '../support/cli-process';
import { writeClassGraph } from '../support/lifecycle';
import { testDatabase, testTarget, uniqueId } from '../support/test-database';

jest.setTimeout(240_000);

const QUICK = ['--epochs', '5', '--eval-every', '0', '--threads', '1'];

describe('kgc worker: warm starts by default, full retrains on KGC_FULL_RETRAIN_CRON', () => {
  let db: Database;
  let env: Record<string, string>;
  let scope: string;
  beforeAll(async () => {
    db = testDatabase();
    const relations = (await writeClassGraph(db, 60)).filter.relations.join(',');
    const target = testTarget();
    scope = uniqueId('scope');
    env = {
      NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
      KGC_MODEL_STORE: fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-worker-warm-')),
      KGC_REGISTRY_SCOPE: scope,
      KGC_RETRAIN_RELATIONS: relations,
      KGC_RETRAIN_POLL_SECONDS: '1',
    };
  });
  afterAll(async () => {
    await db.close();
  });

  const ended = async () =>
    (await listTrainingRuns(db, { first: 50 }, scope)).items.filter((r) => r.endedAt !== null);

  it('retrains from a fresh init on the full schedule, and warm-starts a requested run', async () => {
    const full = startCli(['worker', ...QUICK], { ...env, KGC_FULL_RETRAIN_CRON: '* * * * * *' });
    try {
      const runs = await waitFor(
        async () => ((await ended()).length >= 2 ? ended() : undefined),
        90_000,
        'two full retrains',
      );
      expect(runs.every((r) => r.trigger === 'full-schedule')).toBe(true);
    } finally {
      full.child.kill('SIGTERM');
    }
    expect((await full.exited).code).toBe(0);
    expect(logMessages(full.output())).toMatch(
      /worker: started: no schedule .*full retrains "\* \* \* \* \* \*"/,
    );
    // The second full run had an active version to start from, and did not.
    expect(logMessages(full.output())).toMatch(/job: training from scratch: asked for/);
    expect(logMessages(full.output())).not.toMatch(/warm start from/);

    const before = (await ended()).length;
    const worker = startCli(['worker', ...QUICK], env);
    try {
      await requestRetraining(db, { requestedBy: 'test' }, scope);
      const run = await waitFor(
        async () => ((await ended()).length > before ? (await ended())[0] : undefined),
        60_000,
        'the requested run',
      );
      expect(run).toMatchObject({ trigger: 'request' });
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect((await worker.exited).code).toBe(0);
    expect(logMessages(worker.output())).toMatch(
      /job: warm start from v\S+ \(0\.0% new edges, 0 new entities/,
    );
  });
});
