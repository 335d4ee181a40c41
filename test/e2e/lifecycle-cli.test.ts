import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../../src/graph';
import { getActiveVersion, listTrainingRuns } from '../../src/graph/registry';
import { readSuggestionsFile } from '../../src/model';
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
  /** v1 (active after the first test) and v2, trained by the first test. */
  let trained: string[] = [];
  beforeAll(async () => {
    db = testDatabase();
    // A fixed prefix fixes the held-out split, and with the seeds both versions and their MRRs.
    const graph = await writeClassGraph(db, 80, 'lifecycle_cli');
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
      [
        'train',
        '--epochs',
        '1',
        '--eval-every',
        '0',
        '--threads',
        '1',
        '--seed',
        '3',
        '--loss',
        'softmax',
        '--json',
      ],
      env,
      120_000,
    );
    expect(worse.status).toBe(0);
    const v2 = lastJson(worse.stdout);
    expect(v2).toMatchObject({ status: 'rejected', promoted: false, previousActive: v1.version });
    expect(v2.candidateMrr as number).toBeLessThan(v2.activeMrr as number);
    expect(worse.stdout).toMatch(/rejected .* stays active/);
    expect(
      fs.existsSync(
        path.join(env.KGC_MODEL_STORE as string, v2.version as string, 'suggestions.bin'),
      ),
    ).toBe(false);

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
      training: { loss: 'softmax', epochs: 1 },
    });
    // The version's training settings, the loss among them, in the text view too.
    const shown = runCli(['models', 'show', v1.version as string], env);
    expect(shown.stdout).toMatch(/^training: loss bce, label smoothing /m);

    const promote = runCli(['models', 'promote', v2.version as string, '--json'], env);
    expect(JSON.parse(promote.stdout)).toEqual({ version: v2.version, previous: v1.version });
    // Suggestions are written with each promoted version: the job's (v1) and `models promote`'s
    // (v2, which the gate had rejected and so had none).
    const versionDir = (v: unknown) => path.join(env.KGC_MODEL_STORE as string, v as string);
    expect(fs.existsSync(path.join(versionDir(v1.version), 'suggestions.bin'))).toBe(true);
    expect(promote.stderr).toMatch(/suggestions: \d+ across 2 relation\(s\)/);
    expect(readSuggestionsFile(versionDir(v2.version))).toMatchObject({
      version: v2.version,
      perRelation: 1000,
    });
    const rollback = runCli(['models', 'rollback', '--json'], env);
    expect(JSON.parse(rollback.stdout)).toEqual({ version: v1.version, previous: v2.version });

    const missing = runCli(['models', 'promote', 'v20200101T000000Z-000000'], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^error \[NOT_FOUND\]/);
    trained = [v1.version as string, v2.version as string];
  });

  it('refuses to promote or roll back to a version whose files do not load, changing nothing', async () => {
    const [v1, v2] = trained as [string, string];
    const weights = (v: string) => path.join(env.KGC_MODEL_STORE!, v, 'model.safetensors');
    const truncate = (v: string) => {
      const good = fs.readFileSync(weights(v));
      fs.writeFileSync(weights(v), good.subarray(0, good.length >> 1));
      return () => fs.writeFileSync(weights(v), good);
    };
    // v1 is active (rolled back to above); v2 truncated.
    let restore = truncate(v2);
    const promote = runCli(['models', 'promote', v2], env);
    expect(promote.status).toBe(1);
    expect(promote.stderr).toMatch(
      new RegExp(`^error \\[MODEL_INVALID\\]: Cannot promote ${v2}: its files do not load`),
    );
    expect(promote.stderr).toMatch(/Nothing was changed/);
    expect((await getActiveVersion(db, scope))?.version).toBe(v1);
    restore();
    expect(runCli(['models', 'promote', v2], env).status).toBe(0);
    // Now the rollback target is v1: truncated, the rollback is refused and v2 stays active.
    restore = truncate(v1);
    const rollback = runCli(['models', 'rollback'], env);
    expect(rollback.status).toBe(1);
    expect(rollback.stderr).toMatch(
      new RegExp(`^error \\[MODEL_INVALID\\]: Cannot roll back to ${v1}: its files do not load`),
    );
    expect((await getActiveVersion(db, scope))?.version).toBe(v2);
    restore();
  });

  it('keeps KGC_MODEL_KEEP versions on disk, never the active one or the rollback target', async () => {
    const [v1, v2] = trained as [string, string];
    const keep1 = { ...env, KGC_MODEL_KEEP: '1' };
    const third = runCli(['train', ...TRAIN, '--force', '--json'], keep1, 120_000);
    expect(third.status).toBe(0);
    const v3 = lastJson(third.stdout).version as string;
    // v3 active, v2 its rollback target: both kept although KGC_MODEL_KEEP=1; v1 removed.
    expect((await getActiveVersion(db, scope))?.version).toBe(v3);
    expect(third.stderr).toContain(`removed 1 old version(s) (KGC_MODEL_KEEP=1): ${v1}`);
    expect(fs.readdirSync(env.KGC_MODEL_STORE!).sort()).toEqual([v2, v3].sort());
    const list = JSON.parse(runCli(['models', 'list', '--json'], env).stdout) as {
      version: string;
      prunedAt: string | null;
    }[];
    expect(list.map((v) => [v.version, v.prunedAt !== null])).toEqual([
      [v3, false],
      [v2, false],
      [v1, true],
    ]);
    const show = runCli(['models', 'show', v1], env);
    expect(show.status).toBe(0);
    expect(show.stdout).toMatch(/files pruned .* \(KGC_MODEL_KEEP\)/);
    const promote = runCli(['models', 'promote', v1], env);
    expect(promote.stderr).toMatch(/^error \[MODEL_INVALID\]: .*removed by retention/);
    // A rollback makes v2 active; its own target (v1) is gone, so with KGC_MODEL_KEEP=1 the
    // retired v3 goes too.
    const rollback = runCli(['models', 'rollback', '--json'], keep1);
    expect(JSON.parse(rollback.stdout)).toEqual({ version: v2, previous: v3 });
    expect(fs.readdirSync(env.KGC_MODEL_STORE!).sort()).toEqual([v2]);
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
    expect((await listTrainingRuns(db, { first: 10 }, scope)).items).toHaveLength(3);
  });
});
