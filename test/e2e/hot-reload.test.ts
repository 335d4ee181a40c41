import fs from 'node:fs';
import path from 'node:path';
import { Database } from '../../src/graph';
import { promoteVersion, rollbackVersion } from '../../src/graph/registry';
import { runRetrainJob } from '../../src/jobs';
import { createApiKey } from '../../src/server/api-keys';
import { createLogger } from '../../src/server/logger';
import { startServer, StartedServer } from '../../src/server/start-server';
import { lifecycleFixture, TINY, writeClassGraph } from '../support/lifecycle';
import { gql, MIGRATIONS } from '../support/served-model';
import { testDatabase, testServerConfig } from '../support/test-database';

const admin = createApiKey('ops', 'admin');

async function readyz(url: string) {
  const response = await fetch(url.replace(/graphql$/, 'readyz'));
  return {
    status: response.status,
    body: (await response.json()) as { ready: boolean; reasons: string[]; degraded?: string[] },
  };
}

describe('serving follows the registry: promotions and rollbacks without a restart', () => {
  let db: Database;
  let server: StartedServer;
  const fixture = lifecycleFixture();
  let graph: Awaited<ReturnType<typeof writeClassGraph>>;
  let first: string;
  let second: string;

  const query = () =>
    gql<{ missingLinks: { modelVersion: string }[]; model: { version: string } }>(
      server.url,
      `query($e: String!, $r: String!) {
        missingLinks(entity: $e, relation: $r, k: 5) { modelVersion }
        model { version }
      }`,
      { e: `${graph.prefix}:e1`, r: graph.filter.relations[0] },
      admin.key,
    );

  beforeAll(async () => {
    db = testDatabase();
    graph = await writeClassGraph(db, 80);
    const options = {
      store: fixture.store,
      scope: fixture.scope,
      filter: graph.filter,
      overrides: TINY,
    };
    first = (await runRetrainJob(db, fixture.config, options)).version!;
    second = (await runRetrainJob(db, fixture.config, { ...options, force: true })).version!;
    // Serve the first version, as if the second had not been promoted yet.
    await promoteVersion(db, first, fixture.scope);
    server = await startServer(testServerConfig({ KGC_API_KEYS: admin.entry }), {
      migrationsDir: MIGRATIONS,
      follow: { store: fixture.store, scope: fixture.scope, pollMs: 200 },
    });
  });

  afterAll(async () => {
    await server?.stop();
    await db.close();
    fs.rmSync(fixture.root, { recursive: true, force: true });
  });

  it('swaps to a promoted version under a stream of requests, none failing or mixing versions', async () => {
    expect((await query()).data?.model.version).toBe(first);
    const seen = new Set<string>();
    let failures = 0;
    let running = true;
    const stream = (async () => {
      while (running) {
        const result = await query();
        if (result.errors || !result.data) {
          failures += 1;
          continue;
        }
        const versions = new Set(result.data.missingLinks.map((p) => p.modelVersion));
        versions.add(result.data.model.version);
        expect(versions.size).toBe(1); // one request, one version
        seen.add(result.data.model.version);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await promoteVersion(db, second, fixture.scope);
    const deadline = Date.now() + 10_000;
    while (!seen.has(second) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    running = false;
    await stream;
    expect(failures).toBe(0);
    expect([...seen].sort()).toEqual([first, second].sort());

    await rollbackVersion(db, fixture.scope);
    await server.follower!.poll();
    expect((await query()).data?.model.version).toBe(first);
  });

  it('refuses a corrupt version and keeps serving the one it has', async () => {
    await promoteVersion(db, second, fixture.scope);
    const weights = fs
      .readdirSync(fixture.store.dir(second))
      .find((name) => name.endsWith('.safetensors'));
    // Replaced, not overwritten in place: the server may still map the old weights (an earlier
    // model's background work), and a mapped file cut short under a reader is a SIGBUS.
    const file = path.join(fixture.store.dir(second), weights!);
    fs.writeFileSync(`${file}.corrupt`, 'not a tensor file');
    fs.renameSync(`${file}.corrupt`, file);
    await server.follower!.poll();
    const result = await query();
    expect(result.errors).toBeUndefined();
    expect(result.data?.model.version).toBe(first);
    // Reported: ready but degraded, and the metric says so.
    await server.warmedUp;
    const ready = await readyz(server.url);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, reasons: [] });
    expect(ready.body.degraded).toEqual([
      `model: the active version ${second} does not load (see the log); serving ${first} instead`,
    ]);
    const metrics = await (await fetch(server.url.replace(/graphql$/, 'metrics'))).text();
    expect(metrics).toMatch(/^kgc_model_fallback 1$/m);
    expect(metrics).toContain(`kgc_model_load_failures_total{version="${second}"} 1`);
  });

  it('starts on a corrupt active version by serving the newest promoted one that loads, loudly', async () => {
    // `second` is active and corrupt (above); `first` was promoted before it.
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('info', {
      write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    const fresh = await startServer(testServerConfig({ KGC_API_KEYS: admin.entry }), {
      migrationsDir: MIGRATIONS,
      follow: { store: fixture.store, scope: fixture.scope, pollMs: 60_000 },
      logger,
    });
    try {
      expect(fresh.follower!.current()?.version).toBe(first);
      await fresh.warmedUp;
      const ready = await readyz(fresh.url);
      expect(ready.status).toBe(200);
      expect(ready.body.degraded).toEqual([expect.stringContaining(`serving ${first} instead`)]);
      // Loud: at error level (pino 50), naming both versions.
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 50, active: second, serving: first }),
      );
      const metrics = await (await fetch(fresh.url.replace(/graphql$/, 'metrics'))).text();
      expect(metrics).toMatch(/^kgc_model_fallback 1$/m);
      // Promoting a version that loads clears it.
      await promoteVersion(db, first, fixture.scope);
      await fresh.follower!.poll();
      expect((await readyz(fresh.url)).body).toEqual({ status: 'ready', ready: true, reasons: [] });
      const after = await (await fetch(fresh.url.replace(/graphql$/, 'metrics'))).text();
      expect(after).toMatch(/^kgc_model_fallback 0$/m);
    } finally {
      await fresh.stop();
    }
  });

  it('lists training runs and records retraining requests (admin only)', async () => {
    const runs = await gql<{
      trainingRuns: { items: { status: string; version: string; candidateMrr: number }[] };
    }>(
      server.url,
      '{ trainingRuns(first: 5) { items { status version candidateMrr } endCursor hasMore } }',
      {},
      admin.key,
    );
    expect(runs.errors).toBeUndefined();
    const versions = runs.data!.trainingRuns.items.map((r) => r.version);
    expect(versions).toEqual([second, first]);
    expect(runs.data!.trainingRuns.items[0]!.status).toBe('succeeded');
    const request = await gql<{ requestRetraining: { id: string } }>(
      server.url,
      'mutation { requestRetraining { id requestedAt } }',
      {},
      admin.key,
    );
    expect(request.data?.requestRetraining.id).toMatch(/^req-/);
    const pending = await db.read((tx) =>
      tx.run('MATCH (q:RetrainRequest {scope: $scope}) RETURN count(q) AS n', {
        scope: fixture.scope,
      }),
    );
    expect(pending.records[0]!.get('n')).toBe(1);
  });
});
