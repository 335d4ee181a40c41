import { Database } from '../../src/graph';
import { startServer } from '../../src/server/start-server';
import { gql, MIGRATIONS, ServedGraph, trainServedGraph } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

interface Row {
  entity: { id: string };
  logit: number;
}

const MISSING = `query($entity: String!, $relation: String!, $k: Int, $direction: Direction) {
  missingLinks(entity: $entity, relation: $relation, k: $k, direction: $direction) {
    entity { id } logit
  }
}`;

describe('missingLinks through the approximate top-k index (KGC_TOPK_INDEX=hnsw), over HTTP', () => {
  const tag = uniqueId('ann');
  let graph: ServedGraph;
  let db: Database;
  let exact: Awaited<ReturnType<typeof startServer>>;
  let indexed: Awaited<ReturnType<typeof startServer>>;
  const ask = async (url: string, variables: Record<string, unknown>) => {
    const result = await gql<{ missingLinks: Row[] }>(url, MISSING, variables);
    expect(result.errors).toBeUndefined();
    return result.data?.missingLinks ?? [];
  };

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag);
    const options = { migrationsDir: MIGRATIONS, modelDir: graph.modelDir };
    exact = await startServer(testServerConfig(), options);
    const config = testServerConfig();
    indexed = await startServer(
      {
        ...config,
        // A search as wide as the graph: the index must then give the exact answers.
        topKIndex: {
          kind: 'hnsw',
          minEntities: 0,
          searchWidth: 400,
          connections: 12,
          buildWidth: 64,
        },
      },
      options,
    );
    await indexed.indexer.settled();
  });

  afterAll(async () => {
    await exact?.stop();
    await indexed?.stop();
    await graph?.cleanUp(db);
    await db.close();
  });

  it('answers as the exact scan does, known edges filtered, in both directions', async () => {
    expect(indexed.foldIn.current()?.scorer.approximate).toBe(true);
    expect(exact.foldIn.current()?.scorer.approximate).toBe(false);
    const asks = [
      { entity: graph.id('e5'), relation: graph.similar, k: 10 },
      { entity: graph.id('e31'), relation: graph.isA, k: 3 },
      { entity: graph.id('class1'), relation: graph.isA, k: 8, direction: 'HEAD' },
    ];
    for (const variables of asks) {
      const want = await ask(exact.url, variables);
      const got = await ask(indexed.url, variables);
      expect(got.map((r) => r.entity.id)).toEqual(want.map((r) => r.entity.id));
      got.forEach((r, i) => expect(r.logit).toBeCloseTo(want[i]!.logit, 4));
    }
  });

  it('stops a build in flight when the server stops', async () => {
    const config = testServerConfig();
    const server = await startServer(
      { ...config, topKIndex: { ...config.topKIndex, kind: 'hnsw', minEntities: 0 } },
      { migrationsDir: MIGRATIONS, modelDir: graph.modelDir },
    );
    await server.stop();
    await expect(server.indexer.settled()).resolves.toBeUndefined();
  });
});
