import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Database } from '../../src/graph';
import { createApiKey } from '../../src/server/api-keys';
import { createLogger } from '../../src/server/logger';
import { startServer, StartedServer } from '../../src/server/start-server';
import { gql, MIGRATIONS, ServedGraph, trainServedGraph } from '../support/served-model';
import { TcpProxy } from '../support/tcp-proxy';
import { testDatabase, testServerConfig, testTarget, uniqueId } from '../support/test-database';

const reader = createApiKey('app', 'reader');

/** Collects the server's JSON log lines. */
function logSink() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { lines, raw, logger: createLogger('info', stream) };
}

const ONE = `query($e: String!, $r: String!, $d: Direction, $x: Boolean) {
  missingLinks(entity: $e, relation: $r, k: 7, direction: $d, excludeConnected: $x) {
    entity { id } logit
  }
}`;
const BATCH = `query($q: [MissingLinksInput!]!) {
  missingLinksBatch(queries: $q) { entity { id } logit }
}`;

describe('operations: batching, readiness, metrics, logs', () => {
  const tag = uniqueId('ops');
  let graph: ServedGraph;
  let db: Database;
  let server: StartedServer;
  const sink = logSink();

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag);
    server = await startServer(testServerConfig({ KGC_API_KEYS: reader.entry }), {
      migrationsDir: MIGRATIONS,
      modelDir: graph.modelDir,
      logger: sink.logger,
    });
    // As a load balancer would: traffic once /readyz says ready (the warm-up's own queries
    // share the batcher, and a batch's scoring differs from one query's in the last bits).
    await server.warmedUp;
  });

  afterAll(async () => {
    await server?.stop();
    await graph?.cleanUp(db);
    await db.close();
  });

  it('answers a batch exactly as one-by-one queries, the live known-edge filter included', async () => {
    const queries = [
      { entity: graph.id('e1'), relation: graph.similar, k: 7 },
      { entity: graph.id('e2'), relation: graph.isA, k: 7 },
      { entity: graph.id('class3'), relation: graph.isA, k: 7, direction: 'HEAD' },
      { entity: graph.id('e9'), relation: graph.similar, k: 7, excludeConnected: true },
    ];
    const single = async (q: (typeof queries)[number]) =>
      (
        await gql<{ missingLinks: unknown[] }>(
          server.url,
          ONE,
          { e: q.entity, r: q.relation, d: q.direction, x: q.excludeConnected },
          reader.key,
        )
      ).data!.missingLinks;
    const batch = async () =>
      (await gql<{ missingLinksBatch: unknown[][] }>(server.url, BATCH, { q: queries }, reader.key))
        .data!.missingLinksBatch;
    const one = await Promise.all(queries.map(single));
    expect(await batch()).toEqual(one);
    // An edge written now is filtered from the next batch, as from single queries.
    const top = (one[0] as { entity: { id: string } }[])[0]!.entity.id;
    await db.write((tx) =>
      tx.run('MATCH (h:Entity {id: $h}), (t:Entity {id: $t}) CREATE (h)-[:$($r)]->(t)', {
        h: graph.id('e1'),
        t: top,
        r: graph.similar,
      }),
    );
    const after = await batch();
    expect((after[0] as { entity: { id: string } }[]).map((p) => p.entity.id)).not.toContain(top);
    expect(after).toEqual(await Promise.all(queries.map(single)));
  });

  it('puts a failing query of a batch in its place, the others answered', async () => {
    const result = await gql<{ missingLinksBatch: (unknown[] | null)[] }>(
      server.url,
      BATCH,
      {
        q: [
          { entity: graph.id('e1'), relation: graph.similar },
          { entity: 'nobody', relation: graph.similar },
        ],
      },
      reader.key,
    );
    expect(result.data!.missingLinksBatch[0]).toHaveLength(10);
    expect(result.data!.missingLinksBatch[1]).toBeNull();
    expect(result.errors?.[0]).toMatchObject({
      path: ['missingLinksBatch', 1],
      extensions: { code: 'ENTITY_NOT_FOUND' },
    });
    const tooMany = await gql(
      server.url,
      BATCH,
      { q: Array.from({ length: 257 }, () => ({ entity: 'a', relation: 'b' })) },
      reader.key,
    );
    expect(tooMany.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('is ready with a database, migrations and a model; /healthz is liveness only', async () => {
    const base = server.url.replace(/\/graphql$/, '');
    // Not ready until the start-up work is done (readiness-warm-up.test.ts).
    await server.warmedUp;
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', ready: true, reasons: [] });
    const bare = await startServer(testServerConfig(), { migrationsDir: MIGRATIONS });
    try {
      await bare.warmedUp;
      const notReady = await fetch(bare.url.replace(/graphql$/, 'readyz'));
      expect(notReady.status).toBe(503);
      expect(((await notReady.json()) as { reasons: string[] }).reasons).toEqual([
        'model: none loaded',
      ]);
    } finally {
      await bare.stop();
    }
  });

  it('exposes Prometheus metrics that count what they claim', async () => {
    const metricsUrl = server.url.replace(/graphql$/, 'metrics');
    const counter = async (pattern: RegExp) => {
      const text = await (await fetch(metricsUrl)).text();
      const line = text.split('\n').find((l) => pattern.test(l));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const requests =
      /^kgc_request_duration_seconds_count\{route="\/graphql",method="POST",operation="missingLinks",status="200"\}/;
    const badInput = /^kgc_errors_total\{code="BAD_USER_INPUT"\}/;
    const before = [await counter(requests), await counter(badInput)];
    for (let i = 0; i < 3; i++)
      await gql(server.url, ONE, { e: graph.id('e3'), r: graph.similar }, reader.key);
    await gql(server.url, '{ missingLinks(entity: "", relation: "x") { logit } }', {}, reader.key);
    expect(await counter(requests)).toBe(before[0]! + 3 + 1);
    expect(await counter(badInput)).toBe(before[1]! + 1);
    const text = await (await fetch(metricsUrl)).text();
    expect(text).toMatch(/^# TYPE kgc_scoring_duration_seconds histogram$/m);
    expect(text).toMatch(/^kgc_neo4j_read_duration_seconds_count \d+$/m);
    expect(text).toContain(`kgc_model_info{version="${path.basename(graph.modelDir)}"} 1`);
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#')))
      expect(line).toMatch(/^[a-zA-Z_:][\w:]*(\{[^}]*\})? ([-+0-9.eE]+|NaN|[+-]Inf)$/i);
  });

  it('plans the reasons reads at start, in the background', async () => {
    await server.warmedUp;
    const messages = sink.lines.map((line) => line.msg);
    expect(messages).toContain('reasons reads planned');
    expect(messages).not.toContain('planning the reasons reads failed (the first request will)');
  });

  it('logs one JSON line per request with its id, never a key', async () => {
    const id = `test-${tag}`;
    await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${reader.key}`,
        'x-request-id': id,
      },
      body: JSON.stringify({ query: '{ health { status } }' }),
    });
    const line = sink.lines.find((l) => l.reqId === id);
    expect(line).toMatchObject({
      msg: 'request',
      operation: 'health',
      status: 200,
      path: '/graphql',
    });
    expect(typeof line?.ms).toBe('number');
    expect(
      sink.lines.filter((l) => l.msg === 'request').every((l) => typeof l.reqId === 'string'),
    ).toBe(true);
    expect(sink.raw.join('\n')).not.toContain(reader.key);
  });
});

describe('while the database is away', () => {
  it('fails fast, stays live, reports not ready, and recovers by itself', async () => {
    const { proxy, uri } = await TcpProxy.start(testTarget().uri);
    const target = testTarget();
    const server = await startServer(
      testServerConfig({
        NEO4J_URI: uri,
        NEO4J_USER: target.user,
        NEO4J_PASSWORD: target.password,
      }),
      { migrationsDir: MIGRATIONS },
    );
    const base = server.url.replace(/\/graphql$/, '');
    try {
      expect((await gql(server.url, '{ health { status } }')).errors).toBeUndefined();
      proxy.outage(8000);
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const result = await gql(server.url, '{ health { status } }');
        expect(Date.now() - started).toBeLessThan(2000);
        expect(result.errors?.[0]?.extensions.code).toBe('DATABASE_UNAVAILABLE');
        expect(JSON.stringify(result)).not.toMatch(/bolt:|127\.0\.0\.1/);
      }
      let started = Date.now();
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
      started = Date.now();
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(JSON.stringify(await ready.json())).toMatch(/database: unavailable/);
      // The outage ends: no restart, the breaker's probe finds the database again.
      const deadline = Date.now() + 20_000;
      let recovered = false;
      while (!recovered && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        recovered = (await gql(server.url, '{ health { status } }')).errors === undefined;
      }
      expect(recovered).toBe(true);
    } finally {
      await server.stop();
      await proxy.close();
    }
  });
});

describe('graceful shutdown', () => {
  let child: ReturnType<typeof spawn> | undefined;
  afterEach(() => {
    // A failed run must not leave a server behind.
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('drains in-flight requests on SIGTERM: none fails', async () => {
    const target = testTarget();
    const server = spawn(
      process.execPath,
      [path.resolve(__dirname, '../../bin/kgc.js'), 'serve', '--port', '0'],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NEO4J_URI: target.uri,
          NEO4J_USER: target.user,
          NEO4J_PASSWORD: target.password,
          KGC_REGISTRY_SCOPE: uniqueId('scope'),
          KGC_LOG_LEVEL: 'debug',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = server;
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /"url":"(http:[^"]+)"/.exec(output);
        if (match) resolve(match[1]!);
      });
      server.on('exit', () => reject(new Error(`serve exited early: ${output}`)));
    });
    const exited = new Promise<number | null>((resolve) =>
      server.on('exit', (code) => resolve(code)),
    );
    // Each request on its own connection with half its body sent: the server is handling all
    // 40 (it logs each on arrival) when the signal comes, and their bodies end after it.
    const body = JSON.stringify({ query: '{ health { status } relations { name } }' });
    const requests: http.ClientRequest[] = [];
    const inFlight = Array.from(
      { length: 40 },
      () =>
        new Promise<{ status: number; body: { errors?: unknown } }>((resolve, reject) => {
          const request = http.request(
            url,
            {
              method: 'POST',
              agent: false,
              headers: { 'content-type': 'application/json', 'content-length': body.length },
            },
            (response) => {
              let text = '';
              response.on('data', (chunk: Buffer) => (text += chunk.toString()));
              response.on('end', () =>
                resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }),
              );
            },
          );
          request.on('error', reject);
          request.write(body.slice(0, 10));
          requests.push(request);
        }),
    );
    const deadline = Date.now() + 10_000;
    while ((output.match(/request received/g) ?? []).length < 40 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((output.match(/request received/g) ?? []).length).toBe(40);
    server.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const request of requests) request.end(body.slice(10));
    const results = await Promise.all(inFlight);
    expect(results.filter((r) => r.status !== 200 || r.body.errors)).toEqual([]);
    expect(await exited).toBe(0);
    expect(output).toContain('draining in-flight requests');
  });
});
