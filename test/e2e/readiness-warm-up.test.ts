import { Writable } from 'node:stream';
import { Database } from '../../src/graph';
import { loadServingModel } from '../../src/model';
import { createLogger } from '../../src/server/logger';
import { startServer } from '../../src/server/start-server';
import { MIGRATIONS, ServedGraph, trainServedGraph } from '../support/served-model';
import { testDatabase, testServerConfig, testTarget, uniqueId } from '../support/test-database';

/** How long each warm-up read is held back: long enough that /readyz is asked meanwhile. */
const HELD_MS = 300;

/** Collects the server's JSON log lines. */
function logSink() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

/**
 * The server's own database, whose warm-up reads (they ask for an id no entity has) answer
 * only after HELD_MS: a slow planner, as on a freshly started Neo4j.
 */
function slowWarmUpDatabase(): Database {
  const db = new Database(testTarget(), { maxRetrySeconds: 0, connectTimeoutMs: 5000 });
  const readQuery = db.readQuery.bind(db);
  db.readQuery = (async (query: string, params: Record<string, unknown> = {}) => {
    if (JSON.stringify(params).includes('kgc:warm-up:')) {
      await new Promise((resolve) => setTimeout(resolve, HELD_MS));
    }
    return readQuery(query, params);
  }) as Database['readQuery'];
  return db;
}

describe('/readyz and the start-up work', () => {
  const tag = uniqueId('ready');
  let db: Database;
  let graph: ServedGraph;

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag, 60);
  });

  afterAll(async () => {
    await graph?.cleanUp(db);
    await db.close();
  });

  it('says ready only once Neo4j has planned and run the API reads and the requests ran', async () => {
    const sink = logSink();
    const server = await startServer(
      testServerConfig(),
      { migrationsDir: MIGRATIONS, modelDir: graph.modelDir, logger: sink.logger },
      slowWarmUpDatabase(),
    );
    let warmedUp = false;
    void server.warmedUp.then(() => (warmedUp = true));
    const readyz = server.url.replace(/graphql$/, 'readyz');
    try {
      const notReady: { reasons: string[] }[] = [];
      const deadline = Date.now() + 30_000;
      for (;;) {
        const response = await fetch(readyz);
        const body = (await response.json()) as { reasons: string[] };
        if (response.status === 200) break;
        notReady.push(body);
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The first 200 comes after the work, never before it.
      expect(warmedUp).toBe(true);
      expect(notReady.length).toBeGreaterThan(0);
      expect(notReady[0]?.reasons).toEqual([expect.stringMatching(/^warming up: serving path/)]);
      const messages = sink.lines.map((line) => line.msg);
      expect(messages).toContain('reasons reads planned');
      expect(messages).toContain('start-up work done');
      // The known-edges read ran over every entity of the (small) version, not just once.
      const { entities } = (await loadServingModel(graph.modelDir)).scorer;
      const known = sink.lines.find((line) => line.msg === 'known-edges read warmed up');
      expect(known?.entities).toBe(entities.length);
      const requests = sink.lines.find((line) => line.msg === 'missingLinks requests warmed up');
      expect(requests?.queries).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  });

  it('says ready after KGC_READY_MAX_WAIT_SECONDS however long the work runs, and logs it', async () => {
    const sink = logSink();
    const server = await startServer(
      testServerConfig({ KGC_READY_MAX_WAIT_SECONDS: '0' }),
      { migrationsDir: MIGRATIONS, modelDir: graph.modelDir, logger: sink.logger },
      slowWarmUpDatabase(),
    );
    try {
      const response = await fetch(server.url.replace(/graphql$/, 'readyz'));
      expect(response.status).toBe(200);
      expect(sink.lines.map((line) => line.msg)).toContainEqual(
        expect.stringMatching(/^ready before the start-up work finished/),
      );
    } finally {
      await server.stop();
    }
  });
});
