import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, TripleWriter } from '../../src/graph';
import { getActiveVersion } from '../../src/graph/registry';
import { loadScorer, openVersionDir } from '../../src/model';
import { runCli } from '../support/cli';
import { writeClassGraph } from '../support/lifecycle';
import { testDatabase, testTarget, uniqueId } from '../support/test-database';

jest.setTimeout(300_000);

const TRAIN = ['--epochs', '40', '--eval-every', '10', '--threads', '1', '--seed', '3'];

function lastJson(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
}

describe('retraining warm-starts from the active version', () => {
  let db: Database;
  let env: Record<string, string>;
  let prefix: string;
  let newRelation: string;
  beforeAll(async () => {
    db = testDatabase();
    // A fixed prefix: the held-out edges, and so the gate's two MRRs, are the same on every run.
    const graph = await writeClassGraph(db, 80, 'warm_start_cli');
    prefix = graph.prefix;
    newRelation = `${prefix}_near`;
    env = {
      NEO4J_URI: testTarget().uri,
      NEO4J_USER: testTarget().user,
      NEO4J_PASSWORD: testTarget().password,
      KGC_MODEL_STORE: fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-warm-store-')),
      KGC_REGISTRY_SCOPE: uniqueId('scope'),
      // The new relation is listed from the start: v1's export has no such edges yet.
      KGC_RETRAIN_RELATIONS: [...graph.filter.relations, newRelation].join(','),
    };
  });
  afterAll(async () => {
    await db.close();
  });

  it('trains v1 from scratch, then v2 from v1 in fewer epochs; --from-scratch starts fresh', async () => {
    const first = runCli(['train', ...TRAIN, '--json'], env, 120_000);
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/training from scratch: no active version/);
    const v1 = lastJson(first.stdout);
    expect(v1).toMatchObject({ status: 'succeeded', promoted: true });
    const v1Info = openVersionDir(v1.dir as string).info;
    expect(v1Info.training.warmStartFrom).toBeNull();

    // The graph grows: a new entity with edges to known ones, and a relation v1 never saw.
    const e = (i: number | string) => `${prefix}:e${i}`;
    const newEntity = e('new');
    await new TripleWriter(db).writeEdges([
      [newEntity, `${prefix}_is_a`, `${prefix}:class1`],
      ...[4, 8, 12, 16].map((s): [string, string, string] => [
        newEntity,
        `${prefix}_similar_to`,
        e(s + 1),
      ]),
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((i): [string, string, string] => [
        e(i),
        newRelation,
        e(i + 4),
      ]),
    ]);

    // --force: on a graph this small the two models are near-equal and the gate's verdict is not
    // what this test is about, so it asserts their closeness.
    const second = runCli(['train', ...TRAIN, '--force', '--json'], env, 120_000);
    expect(second.status).toBe(0);
    const line = new RegExp(
      `warm start from ${v1.version as string} \\((\\d+\\.\\d)% new edges, 1 new entities, ` +
        `1 new relations\\): (\\d+) epochs`,
    );
    const said = line.exec(second.stderr);
    expect(said).not.toBeNull();
    expect(Number(said?.[1])).toBeGreaterThan(2);
    const v2 = lastJson(second.stdout);
    // The same promotion gate compared both versions on the same held-out edges.
    expect(v2).toMatchObject({ status: 'succeeded', promoted: true, previousActive: v1.version });
    expect(v2.candidateMrr as number).toBeGreaterThanOrEqual(0.9 * (v2.activeMrr as number));

    const training = openVersionDir(v2.dir as string).info.training;
    expect(training.warmStartFrom).toBe(v1.version);
    const schedule = training.warmStart!.schedule;
    expect(schedule.epochs).toBe(Number(said?.[2]));
    expect(schedule.epochs).toBeLessThan(schedule.fullEpochs);
    expect(training.epochsRun).toBeLessThan(v1Info.training.epochsRun);
    expect(training.warmStart!.mapping).toEqual({
      copiedEntities: v1Info.snapshot.entities,
      newEntities: 1,
      // Its edges to known entities over known relations: its first row is its fold-in.
      foldedInEntities: 1,
      copiedRelations: 2,
      newRelations: 1,
      droppedEntities: 0,
    });

    // `models show` says how it was trained, in text and JSON.
    const shown = runCli(['models', 'show', v2.version as string], env);
    expect(shown.stdout).toMatch(
      new RegExp(`^trained: warm start from ${v1.version as string} \\(`, 'm'),
    );
    const json = JSON.parse(runCli(['models', 'show', v2.version as string, '--json'], env).stdout);
    expect(json.trainedFrom).toMatchObject({ warmStartFrom: v1.version });

    // The active version serves the new entity and the new relation.
    const active = await getActiveVersion(db, env.KGC_REGISTRY_SCOPE as string);
    expect(active?.version).toBe(v2.version);
    const scorer = loadScorer(active!.dir);
    const entity = scorer.entity(newEntity);
    const top = scorer.topK(entity, scorer.relation(`${prefix}_is_a`), 3);
    expect(top).toHaveLength(3);
    expect(scorer.topK(scorer.entity(e(0)), scorer.relation(newRelation), 3)).toHaveLength(3);

    const third = runCli(['train', ...TRAIN, '--from-scratch', '--force', '--json'], env, 120_000);
    expect(third.status).toBe(0);
    expect(third.stderr).toMatch(/training from scratch: asked for/);
    expect(third.stderr).not.toMatch(/warm start from/);
    const v3 = lastJson(third.stdout);
    const fresh = openVersionDir(v3.dir as string).info.training;
    expect(fresh.warmStartFrom).toBeNull();
    expect(fresh.warmStart).toBeUndefined();
    expect(fresh.fromScratch).toMatch(/asked for/);
    expect(runCli(['models', 'show', v3.version as string], env).stdout).toMatch(
      /^trained: from scratch \(asked for/m,
    );
  });

  it('refuses --from-scratch with --dataset, naming the option', () => {
    const result = runCli(['train', '--dataset', os.tmpdir(), '--from-scratch'], env);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^error \[BAD_USER_INPUT\]: --from-scratch applies to the graph job/,
    );
  });
});
