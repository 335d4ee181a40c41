import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_PREFIX } from '../../src/demo';
import { runCli } from '../support/cli';
import { testDatabase, testTarget, uniqueId } from '../support/test-database';

interface Summary {
  heldOut: number;
  recoveredTop10: number;
  recoveredTop1: number;
  modelVersion: string;
  mrr: number;
  promoted: boolean;
  accepted: { head: string; relation: string; tail: string };
  sample: { entity: { id: string }; typeConsistent: boolean | null }[];
}

describe('kgc demo (the main job) against a running Neo4j', () => {
  const db = testDatabase();
  afterAll(async () => {
    try {
      await db.write((tx) =>
        tx.run('MATCH (e:Entity) WHERE e.id STARTS WITH $p DETACH DELETE e', { p: DEMO_PREFIX }),
      );
    } finally {
      await db.close();
    }
  });

  it('runs the loop: ingest, train v1, serve, accept a prediction, retrain through the gate', async () => {
    const target = testTarget();
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-demo-'));
    const env = {
      NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
      KGC_STATE_DIR: stateDir,
      KGC_REGISTRY_SCOPE: uniqueId('demo'),
      KGC_HTTP_PORT: '0',
    };
    const result = runCli(['demo', '--no-serve', '--epochs', '20', '--json'], env, 240_000);
    expect(result.stderr).not.toMatch(/^error/m);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/Ingested \d+ demo triples/);
    expect(result.stdout).toMatch(/Trained version v\S+ through the retraining job/);
    expect(result.stdout).toMatch(/Accepted the top answer as an admin/);
    expect(result.stdout).toMatch(/Retrained: version v\S+ scored [\d.]+ against/);
    const summary = JSON.parse(result.stdout.trim().split('\n').pop() as string) as Summary;
    expect(summary.heldOut).toBeGreaterThan(20);
    expect(summary.recoveredTop10).toBeLessThanOrEqual(summary.heldOut);
    expect(summary.recoveredTop1).toBeLessThanOrEqual(summary.recoveredTop10);
    // 20 epochs learn citizenship from lives_in + located_in well beyond chance (1 in 6 first).
    expect(summary.recoveredTop1).toBeGreaterThan(summary.heldOut / 3);
    expect(summary.modelVersion).toMatch(/^v/);
    // Labelled graph, typed by default: a person's country is a Country, never a person.
    expect(result.stdout).toMatch(/entities labelled \(Person, City, Country, Company\)/);
    expect(summary.sample).toHaveLength(3);
    for (const p of summary.sample) {
      expect(p.entity.id).toMatch(/^demo:country_/);
      expect(p.typeConsistent).toBe(true);
    }
    expect(summary.mrr).toBeGreaterThan(0);
    expect(typeof summary.promoted).toBe('boolean');
    const edge = await db.read((tx) =>
      tx.run(
        'MATCH (:Entity {id: $h})-[e]->(:Entity {id: $t}) WHERE type(e) = $r RETURN e.kgc_source AS source, e.kgc_accepted_by AS by',
        { h: summary.accepted.head, r: summary.accepted.relation, t: summary.accepted.tail },
      ),
    );
    expect(edge.records[0]?.toObject()).toEqual({ source: 'prediction', by: 'demo-admin' });
    expect(
      fs.existsSync(path.join(stateDir, 'models', summary.modelVersion, 'training-curve.svg')),
    ).toBe(true);
    const types = JSON.parse(
      fs.readFileSync(path.join(stateDir, 'models', summary.modelVersion, 'types.json'), 'utf8'),
    ) as { labels: string[] };
    expect([...types.labels].sort()).toEqual(['City', 'Company', 'Country', 'Person']);

    const again = runCli(['demo', '--no-serve', '--epochs', '2', '--json'], env, 240_000);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/\(0 new, \d+ already there\)/);
    expect(again.stdout).toMatch(/active already \(an earlier demo\): reusing it/);
  }, 500_000);
});
