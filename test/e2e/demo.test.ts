import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_PREFIX } from '../../src/ingest';
import { runCli } from '../support/cli';
import { testDatabase, testTarget } from '../support/test-database';

describe('kgc demo (the main job) against a running Neo4j', () => {
  afterAll(async () => {
    const db = testDatabase();
    try {
      await db.write((tx) =>
        tx.run('MATCH (e:Entity) WHERE e.id STARTS WITH $p DETACH DELETE e', { p: DEMO_PREFIX }),
      );
    } finally {
      await db.close();
    }
  });

  it('ingests the demo graph, trains, serves and answers the sample query', () => {
    const target = testTarget();
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-demo-'));
    const env = {
      NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
      KGC_STATE_DIR: stateDir,
      KGC_HTTP_PORT: '0',
    };
    const result = runCli(['demo', '--no-serve', '--epochs', '3'], env, 180_000);
    expect(result.stderr).not.toMatch(/^error/m);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/Ingested \d+ demo triples/);
    expect(result.stdout).toMatch(/Trained on \d+ triples/);
    const answer = JSON.parse(result.stdout.trim().split('\n').pop() as string) as {
      data: { missingLinks: { entity: { id: string }; rank: number }[] };
    };
    expect(answer.data.missingLinks.map((r) => r.rank)).toEqual([1, 2, 3]);
    expect(fs.existsSync(path.join(stateDir, 'models', 'demo', 'manifest.json'))).toBe(true);

    const again = runCli(['demo', '--no-serve', '--epochs', '1'], env, 180_000);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/\(0 new, \d+ already there\)/);
  }, 400_000);
});
