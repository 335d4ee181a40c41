import 'reflect-metadata';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeaderMap } from '@apollo/server';
import type { ApolloServer } from '@apollo/server';
import { DEFAULT_HTTP_LIMITS } from '../config';
import type { ApiConfig, HttpLimits } from '../config';
import { ErrorCode, isKgcError, KgcError } from '../errors';
import type { Database } from '../graph';
import type { FoldInService, ServingModel } from '../model';
import { MissingLinksBatcher, StalenessTracker } from '../resolvers';
import { AdminPage, isAdminPath, loadAdminPage, serveAdminPage } from './admin-page';
import { authenticate } from './authenticate';
import { setCorsHeaders } from './cors';
import { guardServer, serverOptions } from './http-limits';
import { isInternalCode } from './format-error';
import { graphQLContext, internalQuery } from './graphql-context';
import type { InternalQuery } from './graphql-context';
import { createGraphQLServer, RequestTrace, ServerContext } from './graphql-server';
import type { Logger } from './logger';
import { ServerMetrics } from './metrics';
import { readBody } from './read-body';
import { errorCodeLabel, requestLabels } from './request-labels';
import { ReadinessCheck } from './readiness';

export interface RunningServer {
  url: string;
  /** Runs a query in-process without HTTP (the start-up warm-up: graphql-context.ts). */
  query: InternalQuery;
  /** Stops accepting, lets in-flight requests finish (up to `drainMs`), then closes. */
  stop(drainMs?: number): Promise<void>;
}

export interface ServerDeps {
  db: Database;
  /** The model to answer with now; read once per request (hot reload swaps what it returns). */
  model: () => ServingModel | undefined;
  api: ApiConfig;
  logger: Logger;
  registryScope?: string;
  /** Defaults: fresh metrics; readiness of the database and the model (migrations unchecked). */
  metrics?: ServerMetrics;
  readiness?: ReadinessCheck;
  /** Timeouts and the connection limit; default DEFAULT_HTTP_LIMITS. */
  http?: HttpLimits;
  /** The review page's bundle served at /admin; default: dist/admin, read at start (null: not built). */
  adminPage?: AdminPage | null;
  /** The serving version's staleness; default: a tracker of its own (no fold-in counted). */
  staleness?: StalenessTracker;
  /** New entities' fold-in (absent: they answer ENTITY_NOT_IN_MODEL until a retraining). */
  foldIn?: FoldInService;
}

/** ServerDeps with the defaults filled in, plus the server-wide missingLinks batcher. */
type Deps = Required<Omit<ServerDeps, 'registryScope' | 'http' | 'foldIn'>> &
  Pick<ServerDeps, 'registryScope' | 'foldIn'> & { batcher: MissingLinksBatcher };

/** How long a stopping server still reads requests already sent on open connections. */
const SHUTDOWN_GRACE_MS = 250;

const STATUS: Partial<Record<string, number>> = {
  [ErrorCode.BAD_REQUEST]: 400,
  [ErrorCode.UNAUTHENTICATED]: 401,
  [ErrorCode.FORBIDDEN]: 403,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
};

/** GraphQL on /graphql and a plain /healthz over node:http. Every failure is answered. */
export async function listen(
  given: ServerDeps,
  host: string,
  port: number,
): Promise<RunningServer> {
  const metrics = given.metrics ?? new ServerMetrics();
  const deps: Deps = {
    ...given,
    metrics,
    readiness: given.readiness ?? new ReadinessCheck(given.db, undefined, given.model),
    batcher: new MissingLinksBatcher(given.db, metrics),
    adminPage: given.adminPage === undefined ? loadAdminPage() : given.adminPage,
    staleness: given.staleness ?? new StalenessTracker(given.db),
  };
  const apollo = createGraphQLServer(deps.api);
  await apollo.start();
  let inFlight = 0;
  let draining = false;
  let idle: (() => void) | undefined;
  const limits = given.http ?? DEFAULT_HTTP_LIMITS;
  let track: ReturnType<typeof guardServer> = () => undefined;
  const server = http.createServer(serverOptions(limits), (request, response) => {
    inFlight += 1;
    track(request, response);
    // While draining, tell keep-alive clients not to send more on this connection.
    if (draining) response.setHeader('connection', 'close');
    response.on('close', () => {
      inFlight -= 1;
      if (inFlight === 0) idle?.();
    });
    handle(apollo, deps, request, response).catch((error: unknown) => {
      // handle() answers its own failures; this is the last line, so the process never dies.
      deps.logger.error({ err: error }, 'request handler failed');
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  track = guardServer(server, limits, deps.logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/graphql`,
    query: internalQuery(apollo, deps),
    stop: async (drainMs = 10_000) => {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Requests already sent on open connections may not be parsed yet: give them a moment
      // before idle connections are closed, then wait for every request in flight.
      await new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (idle = resolve)),
          new Promise<void>((resolve) => setTimeout(resolve, drainMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await closed;
      await apollo.stop();
    },
  };
}

function requestId(request: http.IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : crypto.randomUUID();
}

/** `[path, search]` of a request target (`/graphql?query=...`); search keeps its `?`. */
function splitTarget(target: string | undefined): [string, string] {
  const raw = target ?? '/';
  const q = raw.indexOf('?');
  return q < 0 ? [raw, ''] : [raw.slice(0, q), raw.slice(q)];
}

function sendError(response: http.ServerResponse, error: KgcError): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response
    .writeHead(STATUS[error.code] ?? 500, { 'content-type': 'application/json' })
    .end(
      JSON.stringify({ errors: [{ message: error.message, extensions: { code: error.code } }] }),
    );
}

async function handle(
  apollo: ApolloServer<ServerContext>,
  deps: Deps,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<void> {
  const started = process.hrtime.bigint();
  const trace: RequestTrace = { id: requestId(request), codes: [] };
  response.setHeader('x-request-id', trace.id);
  deps.logger.debug({ reqId: trace.id, method: request.method }, 'request received');
  let path = '?';
  try {
    // Split by hand, not with `new URL`: a request target such as `//` is not a valid URL.
    let search: string;
    [path, search] = splitTarget(request.url);
    setCorsHeaders(request, response, deps.api.corsOrigins);
    if (request.method === 'OPTIONS') {
      response.writeHead(204).end();
      return;
    }
    if (path === '/healthz') {
      // Liveness only: answers at once whatever the database does.
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (path === '/readyz') {
      const readiness = await deps.readiness.check();
      response
        .writeHead(readiness.ready ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: readiness.ready ? 'ready' : 'not ready', ...readiness }));
      return;
    }
    if (path === '/metrics') {
      deps.metrics.setModelVersion(deps.model()?.version);
      const text = await deps.metrics.registry.metrics();
      response.writeHead(200, { 'content-type': deps.metrics.registry.contentType }).end(text);
      return;
    }
    if (isAdminPath(path)) {
      serveAdminPage(deps.adminPage, request, response, path);
      return;
    }
    if (path !== '/graphql') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    await serveGraphQL(apollo, deps, request, response, trace, search);
  } catch (error) {
    const known =
      isKgcError(error) && !isInternalCode(error.code)
        ? error
        : new KgcError(
            isKgcError(error) ? error.code : ErrorCode.INTERNAL,
            'Internal error; the server log has the details (search it for this request id).',
          );
    if (known !== error) deps.logger.error({ reqId: trace.id, err: error }, 'request failed');
    trace.codes.push(known.code);
    sendError(response, known);
  } finally {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    deps.metrics.observeRequest(
      requestLabels(path, request.method, trace.operation, response.statusCode),
      seconds,
    );
    for (const code of trace.codes) deps.metrics.countError(errorCodeLabel(code));
    deps.logger.info(
      {
        reqId: trace.id,
        method: request.method,
        path,
        operation: trace.operation,
        status: response.statusCode,
        codes: trace.codes.length ? trace.codes : undefined,
        ms: seconds * 1000,
      },
      'request',
    );
  }
}

async function serveGraphQL(
  apollo: ApolloServer<ServerContext>,
  deps: Deps,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  trace: RequestTrace,
  search: string,
): Promise<void> {
  const caller = authenticate(request.headers.authorization, deps.api);
  const raw = request.method === 'POST' ? await readBody(request, deps.api.maxBodyBytes) : '';
  let body: unknown;
  try {
    body = raw === '' ? undefined : JSON.parse(raw);
  } catch (error) {
    throw new KgcError(
      ErrorCode.BAD_REQUEST,
      `The request body is not valid JSON (${(error as Error).message}); send {"query": "...", "variables": {...}}.`,
    );
  }
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  const context = graphQLContext(deps, caller, trace);
  const result = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: request.method ?? 'GET',
      headers,
      search,
      body,
    },
    context: async () => context,
  });
  // Answers reflect the graph and the model now: never cached (Apollo's cache control is off).
  response.setHeader('cache-control', 'no-store');
  response.writeHead(result.status ?? 200, Object.fromEntries(result.headers));
  if (result.body.kind === 'complete') response.end(result.body.string);
  else {
    for await (const chunk of result.body.asyncIterator) response.write(chunk);
    response.end();
  }
}
