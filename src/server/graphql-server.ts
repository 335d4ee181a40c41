import { ApolloServer } from '@apollo/server';
import type { ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { ASTVisitor, GraphQLError, Kind, ValidationContext } from 'graphql';
import type { ApiConfig } from '../config';
import type { RequestContext } from '../resolvers';
import { ErrorCode, isKgcError } from '../errors';
import { createFormatError, graphqlErrorCode, isInternalCode } from './format-error';
import { buildGraphQLSchema } from './graphql-schema';
import { maxIntrospectionDepthRule } from './introspection-depth';
import type { Logger } from './logger';
import { queryCostPlugin } from './query-cost';

/** Per-request facts the HTTP layer logs once the response is sent. */
export interface RequestTrace {
  id: string;
  operation?: string;
  codes: string[];
}

export type ServerContext = RequestContext & { trace: RequestTrace; logger: Logger };

/** Records the operation and error codes; logs internal errors with their stack (never sent). */
const tracePlugin: ApolloServerPlugin<ServerContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ contextValue, operation }) {
        // Root field names, not the client's operation name: a bounded set (metric labels).
        const fields = new Set<string>();
        for (const selection of operation?.selectionSet.selections ?? []) {
          if (selection.kind === Kind.FIELD) fields.add(selection.name.value);
        }
        contextValue.trace.operation = [...fields].sort().join(',') || operation?.operation;
      },
      async didEncounterErrors({ contextValue, errors }) {
        for (const error of errors) {
          const original = error.originalError;
          const ownCode = isKgcError(original) ? original.code : undefined;
          const code = ownCode ?? graphqlErrorCode(error);
          contextValue.trace.codes.push(code);
          if (code === ErrorCode.DATABASE_UNAVAILABLE) {
            // Expected while Neo4j is away (and counted in the metrics): one line, no stack.
            contextValue.logger.warn(
              { reqId: contextValue.trace.id, code, detail: original?.message },
              'database unavailable',
            );
          } else if (isInternalCode(code)) {
            contextValue.logger.error(
              { reqId: contextValue.trace.id, err: original ?? error, path: error.path },
              'internal error in a GraphQL operation',
            );
          }
        }
      },
    };
  },
};

/** Armor's rules throw by default, which Apollo reports as a 500; report them as validation. */
const reportAsValidationError = {
  exposeLimits: true,
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) => context?.reportError(error),
  ],
};

/** An operation type the schema lacks (subscriptions here) fails validation, not execution. */
function supportedOperationRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (!context.getSchema().getRootType(node.operation)) {
        context.reportError(
          new GraphQLError(`This API has no ${node.operation} operations.`, { nodes: [node] }),
        );
      }
    },
  };
}

/** Apollo with the API's limits: depth, aliases, tokens (parser), introspection, debug. */
export function createGraphQLServer(api: ApiConfig): ApolloServer<ServerContext> {
  return new ApolloServer<ServerContext>({
    schema: buildGraphQLSchema(),
    formatError: createFormatError(api.debug),
    includeStacktraceInErrorResponses: api.debug,
    introspection: api.introspection,
    parseOptions: { maxTokens: api.maxQueryTokens },
    validationRules: [
      supportedOperationRule,
      // Armor's depth rule skips __schema; introspection has a limit of its own.
      maxDepthRule({ n: api.maxQueryDepth, ...reportAsValidationError }),
      maxIntrospectionDepthRule(),
      maxAliasesRule({ n: api.maxAliases, ...reportAsValidationError }),
    ],
    // Apollo's default cache-control plugin wraps every field's resolver to collect cache hints
    // the schema never sets (a cost per field of every answer); /graphql says no-store itself.
    plugins: [
      tracePlugin,
      queryCostPlugin(api.maxQueryCost),
      ApolloServerPluginCacheControlDisabled(),
      // Apollo's landing page (GET /graphql from a browser) loads a script from Apollo's CDN
      // on the origin that serves /admin: none is served (the admin page is ours, /admin).
      ApolloServerPluginLandingPageDisabled(),
    ],
    // The HTTP server owns shutdown (it drains in-flight requests first); Apollo's own handler
    // would stop mid-drain and re-raise the signal, killing the process.
    stopOnTerminationSignals: false,
  });
}
