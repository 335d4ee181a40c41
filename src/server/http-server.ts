import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, HeaderMap } from '@apollo/server';
import type { Database } from '../graph';
import type { RequestContext, ServingModel } from '../resolvers';
import { formatError } from './format-error';
import { buildGraphQLSchema } from './graphql-schema';

export const SERVICE_VERSION = '0.1.0';

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

async function readBody(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * GraphQL on /graphql and a plain /healthz, over node:http. The caller owns `db` and must have
 * checked migrations (see start-server.ts).
 */
export async function listen(
  db: Database,
  model: ServingModel | undefined,
  host: string,
  port: number,
): Promise<RunningServer> {
  const apollo = new ApolloServer<RequestContext>({ schema: buildGraphQLSchema(), formatError });
  await apollo.start();
  const server = http.createServer((request, response) => {
    void handle(apollo, { db, model, version: SERVICE_VERSION }, request, response);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/graphql`,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await apollo.stop();
    },
  };
}

async function handle(
  apollo: ApolloServer<RequestContext>,
  context: RequestContext,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  try {
    if (url.pathname === '/healthz') {
      await context.db.ping();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (url.pathname !== '/graphql') {
      response.writeHead(404).end();
      return;
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const raw = request.method === 'POST' ? await readBody(request) : '';
    const result = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        method: request.method ?? 'GET',
        headers,
        search: url.search,
        body: raw === '' ? undefined : JSON.parse(raw),
      },
      context: async () => context,
    });
    response.writeHead(result.status ?? 200, Object.fromEntries(result.headers));
    if (result.body.kind === 'complete') response.end(result.body.string);
    else {
      for await (const chunk of result.body.asyncIterator) response.write(chunk);
      response.end();
    }
  } catch (error) {
    const unavailable = url.pathname === '/healthz';
    response
      .writeHead(unavailable ? 503 : 400, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
  }
}
