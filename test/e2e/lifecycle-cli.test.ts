import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../../src/graph';
import { getActiveVersion, listTrainingRuns } from '../../src/graph/registry';
import { runCli } from '../support/cli';
import { writeClassGraph } from '../support/lifecycle';
import { testDatabase, testTarget, uniqueId } from '../support/test-database';

jest.setTimeout(240_000);

const TRAIN = ['--epochs', '40', '--eval-every', '10', '--threads', '1', '--seed', '3'];

function lastJson(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
}

describe('kgc train against the graph, and kgc models', () => {
  let db: Database;
  let env: Record<string, string>;
  let scope: string;
  beforeAll(async () => {
    db = testDatabase();
    const graph = await writeClassGraph(db, 80);
    const target = testTarget();
    scope = uniqueId('scope');
    env = {
      NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
      KGC_MODEL_STORE: fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-cli-store-')),
      KGC_REGISTRY_SCOPE: scope,
      KGC_RETRAIN_RELATIONS: graph.filter.relations.join(','),
    };
  });
  afterAll(async () => {
    await db.close();
  });

  it('trains, gates, lists, shows, promotes and rolls back', () => {
    const first = runCli(['train', ...TRAIN, '--json'], env, 120_000);
    expect(first.stderr).toMatch(/phase=export/);
    expect(first.status).toBe(0);
    const v1 = lastJson(first.stdout);
    expect(v1).toMatchObject({ status: 'succeeded', promoted: true, previousActive: null });
    expect(Object.keys(v1.timings as object)).toEqual(
      expect.arrayContaining(['export', 'split', 'train', 'evaluate', 'write', 'register']),
    );

    const worse = runCli(
      ['train', '--epochs', '1', '--eval-every', '0', '--threads', '1', '--json'],
      env,
      120_000,
    );
    expect(worse.status).toBe(0);
    const v2 = lastJson(worse.stdout);
    expect(v2).toMatchObject({ status: 'rejected', promoted: false, previousActive: v1.version });
    expect(v2.candidateMrr as number).toBeLessThan(v2.activeMrr as number);
    expect(worse.stdout).toMatch(/rejected .* stays active/);

    const list = runCli(['models', 'list', '--json'], env);
    expect(list.status).toBe(0);
    const versions = JSON.parse(list.stdout) as Record<string, unknown>[];
    expect(versions.map((v) => [v.version, v.status, v.active])).toEqual([
      [v2.version, 'rejected', false],
      [v1.version, 'active', true],
    ]);
    for (const key of ['version', 'status', 'active', 'metrics', 'createdAt', 'trigger']) {
      expect(versions[0]).toHaveProperty(key);
    }

    const show = runCli(['models', 'show', v2.version as string, '--json'], env);
    expect(JSON.parse(show.stdout)).toMatchObject({
      version: v2.version,
      gate: { activeVersion: v1.version, candidateMrr: v2.candidateMrr },
    });

    const promote = runCli(['models', 'promote', v2.version as string, '--json'], env);
    expect(JSON.parse(promote.stdout)).toEqual({ version: v2.version, previous: v1.version });
    const rollback = runCli(['models', 'rollback', '--json'], env);
    expect(JSON.parse(rollback.stdout)).toEqual({ version: v1.version, previous: v2.version });

    const missing = runCli(['models', 'promote', 'v20200101T000000Z-000000'], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^error \[NOT_FOUND\]/);
  });

  it('refuses --out without --dataset and names the option', () => {
    const result = runCli(['train', '--out', '/tmp/x'], env);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^error \[BAD_USER_INPUT\]: --out and --resume need --dataset/);
  });

  it('records a retraining request', async () => {
    const result = runCli(['retrain', '--request', '--json'], env);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: expect.stringMatching(/^req-/) });
    expect((await getActiveVersion(db, scope))?.version).toBeDefined();
    expect((await listTrainingRuns(db, { first: 10 }, scope)).items).toHaveLength(2);
  });
});
