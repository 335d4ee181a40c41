import net from 'node:net';
import { loadConfig } from '../../src/config';
import { Database } from '../../src/graph';
import { listen, RunningServer } from '../../src/server/http-server';
import { silentLogger } from '../../src/server/logger';
import { startServer } from '../../src/server/start-server';
import { gql, MIGRATIONS } from '../support/served-model';
import { testServerConfig } from '../support/test-database';

/** Sends raw bytes, as a broken or hostile client would, and returns the raw answer. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
  });
}

function noInternals(text: string): void {
  expect(text).not.toMatch(/\n\s+at |\/work\/|node_modules|\.ts:\d+|stacktrace|bolt:\/\//);
}

describe('an API no request can crash', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let port: number;
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  beforeAll(async () => {
    server = await startServer(
      testServerConfig({ KGC_MAX_BODY_BYTES: String(64 * 1024), KGC_MAX_QUERY_DEPTH: '2' }),
      { migrationsDir: MIGRATIONS },
    );
    port = Number(new URL(server.url).port);
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function stillServing(): Promise<void> {
    const alive = await gql<{ __typename: string }>(server.url, '{ __typename }');
    expect(alive.data?.__typename).toBe('Query');
  }

  it('answers odd request lines and URLs (GET //) and keeps serving', async () => {
    for (const line of [
      'GET // HTTP/1.1',
      'GET //x/../..//graphql HTTP/1.1',
      'GET /%zz HTTP/1.1',
    ]) {
      const answer = await rawRequest(port, `${line}\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 (404|400)/);
      noInternals(answer);
    }
    const garbage = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400/);
    await stillServing();
  });

  it("serves no landing page that loads another origin's script on GET /graphql from a browser", async () => {
    const answer = await fetch(server.url, { headers: { accept: 'text/html' } });
    const body = await answer.text();
    expect(body).not.toMatch(/<script|apollographql\.com|embeddable-sandbox/i);
    expect(answer.headers.get('content-type') ?? '').not.toContain('text/html');
    noInternals(body);
    await stillServing();
  });

  it('refuses malformed JSON, batches and oversized bodies with their codes', async () => {
    const malformed = await post('{"query": "{ __typename }"');
    expect(malformed.status).toBe(400);
    const body = await malformed.text();
    expect(JSON.parse(body).errors[0].extensions.code).toBe('BAD_REQUEST');
    noInternals(body);

    const batch = await post(JSON.stringify([{ query: '{ __typename }' }]));
    expect(batch.status).toBe(400);
    noInternals(await batch.text());

    const huge = await post(JSON.stringify({ query: `{ __typename } # ${'x'.repeat(100_000)}` }));
    expect(huge.status).toBe(413);
    expect(
      ((await huge.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions
        .code,
    ).toBe('PAYLOAD_TOO_LARGE');
    await stillServing();
  });

  it('refuses bad GraphQL under its own codes, never INTERNAL', async () => {
    const cases: [string, string][] = [
      ['{ missingLinks(', 'GRAPHQL_PARSE_FAILED'],
      ['{ nope }', 'GRAPHQL_VALIDATION_FAILED'],
      ['subscription { health { status } }', 'GRAPHQL_VALIDATION_FAILED'],
      // Depth 3 against a limit of 2.
      [
        '{ missingLinks(entity: "a", relation: "b") { entity { id } } }',
        'GRAPHQL_VALIDATION_FAILED',
      ],
      [
        `{ ${Array.from({ length: 3000 }, (_, i) => `f${i}: __typename`).join(' ')} }`,
        'GRAPHQL_PARSE_FAILED',
      ],
      [
        `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: health { status }`).join(' ')} }`,
        'GRAPHQL_VALIDATION_FAILED',
      ],
      // Introspection nested 100 ofType deep: exempt from the depth rule, not from its own.
      [
        `{ __schema { types { fields { type { ${'ofType { '.repeat(100)}name${' }'.repeat(100)} } } } } }`,
        'GRAPHQL_VALIDATION_FAILED',
      ],
    ];
    for (const [query, code] of cases) {
      const response = await post(JSON.stringify({ query }));
      const text = await response.text();
      noInternals(text);
      const errors = JSON.parse(text).errors as { extensions: { code: string } }[] | undefined;
      expect([query.slice(0, 30), errors?.[0]?.extensions.code]).toEqual([
        query.slice(0, 30),
        code,
      ]);
    }
    const introspection = await post(
      JSON.stringify({ query: '{ __schema { types { fields { type { name } } } } }' }),
    );
    expect(introspection.status).toBe(200); // introspection is exempt from the depth limit
    await stillServing();
  });

  it('answers CORS preflights for configured origins only', async () => {
    const denied = await fetch(server.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example' },
    });
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('a resolver that fails', () => {
  let running: RunningServer;
  let db: Database;

  beforeAll(async () => {
    // A database nobody listens on: every resolver that reads it fails.
    db = new Database(
      { uri: 'bolt://127.0.0.1:1', user: 'neo4j', password: 'secret-password', database: 'neo4j' },
      { maxRetrySeconds: 0, connectTimeoutMs: 1000 },
    );
    const config = loadConfig({ KGC_HTTP_PORT: '0' });
    running = await listen(
      { db, model: () => undefined, api: config.api, logger: silentLogger },
      '127.0.0.1',
      0,
    );
  });

  afterAll(async () => {
    await running.stop();
    await db.close();
  });

  it('is answered with a code and no internals, and the server keeps serving', async () => {
    const result = await gql(running.url, '{ health { status } }');
    expect(result.errors?.[0]?.extensions.code).toBe('DATABASE_UNAVAILABLE');
    noInternals(JSON.stringify(result));
    expect(JSON.stringify(result)).not.toContain('secret-password');
    const healthz = await fetch(running.url.replace(/graphql$/, 'healthz'));
    expect(healthz.status).toBe(200);
    const alive = await gql<{ __typename: string }>(running.url, '{ __typename }');
    expect(alive.data?.__typename).toBe('Query');
  });
});
