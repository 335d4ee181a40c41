import type { ApolloServer } from '@apollo/server';
import type { ApiConfig } from '../config';
import type { Database } from '../graph';
import type { FoldInService, ServingModel } from '../model';
import { createLoaders } from '../resolvers';
import type { Caller, MissingLinksBatcher, StalenessTracker } from '../resolvers';
import type { RequestTrace, ServerContext } from './graphql-server';
import type { Logger } from './logger';
import type { ServerMetrics } from './metrics';
import { SERVICE_VERSION } from './service-version';

/** What a request's GraphQL context is made of: the server's shared parts. */
interface ContextDeps {
  db: Database;
  model: () => ServingModel | undefined;
  api: ApiConfig;
  batcher: MissingLinksBatcher;
  metrics: ServerMetrics;
  registryScope?: string;
  staleness: StalenessTracker;
  foldIn?: FoldInService;
  logger: Logger;
}

/** One request's context: the model taken now (the request keeps it), fresh loaders. */
export function graphQLContext(
  deps: ContextDeps,
  caller: Caller | null,
  trace: RequestTrace,
): ServerContext {
  return {
    db: deps.db,
    model: deps.model(),
    version: SERVICE_VERSION,
    caller,
    keysConfigured: deps.api.keys.length > 0,
    loaders: createLoaders(deps.db),
    missingLinks: deps.batcher,
    metrics: deps.metrics,
    registryScope: deps.registryScope,
    staleness: deps.staleness,
    foldIn: deps.foldIn,
    trace,
    logger: deps.logger,
  };
}

/** Runs a query operation in-process, as an anonymous reader, without HTTP; its answer is dropped. */
export type InternalQuery = (query: string, variables: Record<string, unknown>) => Promise<void>;

/**
 * The server's own queries (the start-up warm-up): the whole GraphQL pipeline (parse, validate,
 * the cost plugin, resolvers, the shared batcher) as /graphql runs it, minus HTTP, the request
 * log and the request metrics.
 */
export function internalQuery(
  apollo: ApolloServer<ServerContext>,
  deps: ContextDeps,
): InternalQuery {
  let n = 0;
  return async (query, variables) => {
    n += 1;
    const trace: RequestTrace = { id: `internal-${n}`, codes: [] };
    await apollo.executeOperation(
      { query, variables },
      { contextValue: graphQLContext(deps, null, trace) },
    );
  };
}
