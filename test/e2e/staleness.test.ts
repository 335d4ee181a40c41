import fs from 'node:fs';
import { Database } from '../../src/graph';
import { runRetrainJob } from '../../src/jobs';
import { createApiKey } from '../../src/server/api-keys';
import { startServer, StartedServer } from '../../src/server/start-server';
import { lifecycleFixture, TINY, writeClassGraph } from '../support/lifecycle';
import { gql, MIGRATIONS } from '../support/served-model';
import { testDatabase, testServerConfig } from '../support/test-database';

const reader = createApiKey('app', 'reader');

interface Staleness {
  newEntities: number;
  newEdges: number | null;
  foldedIn: number;
  sinceVersion: string;
}

/** The three gauges, parsed from /metrics as a scraper reads them. */
async function gauges(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(url.replace(/graphql$/, 'metrics'))).text();
  const found: Record<string, number> = {};
  for (const name of ['kgc_stale_new_entities', 'kgc_stale_new_edges', 'kgc_folded_in_entities']) {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    if (line) found[name] = Number(line.slice(name.length + 1));
  }
  return found;
}

describe('staleness in the open: what the graph holds that the serving version was not trained on', () => {
  let db: Database;
  let server: StartedServer;
  const fixture = lifecycleFixture();
  let graph: Awaited<ReturnType<typeof writeClassGraph>>;
  let options: Parameters<typeof runRetrainJob>[2];

  const staleness = async (key = reader.key) => {
    const result = await gql<{ model: { version: string; staleness: Staleness } }>(
      server.url,
      '{ model { version staleness { newEntities newEdges foldedIn sinceVersion } } }',
      {},
      key,
    );
    expect(result.errors).toBeUndefined();
    return result.data!.model;
  };

  beforeAll(async () => {
    db = testDatabase();
    graph = await writeClassGraph(db, 60);
    options = { store: fixture.store, scope: fixture.scope, filter: graph.filter, overrides: TINY };
    const first = await runRetrainJob(db, fixture.config, options);
    expect(first.promoted).toBe(true);
    // The canary off: on this 60-entity graph its few edges may hold the new entity back
    // (fold-in.test.ts says why; the canary's own tests are in test/unit/model/fold-in).
    const config = testServerConfig({ KGC_API_KEYS: reader.entry, KGC_FOLD_IN_MAX_HARM: '1' });
    server = await startServer(config, {
      migrationsDir: MIGRATIONS,
      follow: { store: fixture.store, scope: fixture.scope, pollMs: 200 },
    });
  });

  afterAll(async () => {
    await server?.stop();
    await db.close();
    fs.rmSync(fixture.root, { recursive: true, force: true });
  });

  it('is 0/0 after training, rises with ingest (1 new entity, 3 new edges), and drops to 0 after retraining', async () => {
    const before = await staleness();
    expect(before.staleness).toEqual({
      newEntities: 0,
      newEdges: 0,
      foldedIn: 0,
      sinceVersion: before.version,
    });
    expect(await gauges(server.url)).toEqual({
      kgc_stale_new_entities: 0,
      kgc_stale_new_edges: 0,
      kgc_folded_in_entities: 0,
    });

    // Another graph under relations the version was not trained on: outside its scope.
    await writeClassGraph(db, 20);
    expect((await staleness()).staleness).toMatchObject({ newEntities: 0, newEdges: 0 });

    // Two edges between known entities, one that brings a new entity.
    await graph.add([
      ['newbie', 'is_a', 'class0'],
      ['e0', 'is_a', 'class1'],
      ['e1', 'similar_to', 'e3'],
    ]);
    // The server folds the new entity in, in the background: it is served, and still new.
    const folding = Date.now() + 15_000;
    while ((await staleness()).staleness.foldedIn < 1 && Date.now() < folding) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = await staleness();
    expect(after.staleness).toEqual({
      newEntities: 1,
      newEdges: 3,
      foldedIn: 1,
      sinceVersion: before.version,
    });
    expect(await gauges(server.url)).toEqual({
      kgc_stale_new_entities: 1,
      kgc_stale_new_edges: 3,
      kgc_folded_in_entities: 1,
    });

    const second = await runRetrainJob(db, fixture.config, { ...options, force: true });
    expect(second.promoted).toBe(true);
    const deadline = Date.now() + 15_000;
    while ((await staleness()).version !== second.version && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const retrained = await staleness();
    expect(retrained.version).toBe(second.version);
    expect(retrained.staleness).toEqual({
      newEntities: 0,
      newEdges: 0,
      foldedIn: 0,
      sinceVersion: second.version,
    });
    expect(second.version).not.toBe(before.version);
    expect(await gauges(server.url)).toEqual({
      kgc_stale_new_entities: 0,
      kgc_stale_new_edges: 0,
      kgc_folded_in_entities: 0,
    });
  });

  it('needs the same key as the other model fields: anonymous reads are refused when keys are set', async () => {
    const result = await gql(server.url, '{ model { staleness { newEdges } } }');
    expect(result.status).toBe(401);
    expect(result.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
  });
});
