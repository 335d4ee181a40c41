import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { ErrorCode, isKgcError } from '../errors';

/**
 * Codes whose messages carry internals (driver text, URIs, engine details): clients get a
 * fixed line instead, unless KGC_DEBUG; the server log keeps the original.
 */
const PUBLIC_MESSAGES: Partial<Record<string, string>> = {
  [ErrorCode.DATABASE_UNAVAILABLE]: 'The database is unavailable; try again shortly.',
  [ErrorCode.DATABASE_ERROR]:
    'The database failed to answer; the server log has the details (search it for this request id).',
  [ErrorCode.DATABASE_AUTH_FAILED]:
    'The service cannot sign in to its database; an operator must check its credentials.',
  [ErrorCode.CONSTRAINT_VIOLATION]:
    'The write conflicted with the database schema; the server log has the details.',
  [ErrorCode.ENGINE_ERROR]:
    'The model engine failed; the server log has the details (search it for this request id).',
};

/**
 * graphql-js stops coercing variables after 50 errors with an error that carries no code: it is
 * the client's input, not the server's fault.
 */
const TOO_MANY_VARIABLE_ERRORS = /^Too many errors processing variables/;

/** The code of an error GraphQL or Apollo raised (not one of ours), INTERNAL when it has none. */
export function graphqlErrorCode(error: {
  message: string;
  extensions?: Record<string, unknown>;
}): string {
  const code = error.extensions?.code;
  if (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') return code;
  if (TOO_MANY_VARIABLE_ERRORS.test(error.message)) return ErrorCode.BAD_USER_INPUT;
  return ErrorCode.INTERNAL;
}

/** Whether the server should log this error with its details (clients see a fixed line). */
export function isInternalCode(code: string): boolean {
  return code === ErrorCode.INTERNAL || code === 'INTERNAL_SERVER_ERROR' || code in PUBLIC_MESSAGES;
}

/**
 * What clients see: a stable `extensions.code` and a message that says what to do. Errors of
 * our own keep their message; GraphQL's own (parse, validation, bad variables) keep their code;
 * anything else becomes INTERNAL with a generic message (the server log has the details, by
 * request id). Stack traces only with KGC_DEBUG.
 */
export function createFormatError(debug: boolean) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const { stacktrace, ...extensions } = formatted.extensions ?? {};
    const withDebug = (e: GraphQLFormattedError): GraphQLFormattedError =>
      debug && stacktrace ? { ...e, extensions: { ...e.extensions, stacktrace } } : e;
    if (isKgcError(original)) {
      const fixed = debug ? undefined : PUBLIC_MESSAGES[original.code];
      return withDebug({
        ...formatted,
        message: fixed ?? original.message,
        extensions: { ...extensions, code: original.code },
      });
    }
    const code = graphqlErrorCode(formatted);
    if (code !== ErrorCode.INTERNAL) {
      return withDebug({ ...formatted, extensions: { ...extensions, code } });
    }
    return withDebug({
      message: debug
        ? `Internal error: ${formatted.message}`
        : 'Internal error; the server log has the details (search it for this request id).',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: ErrorCode.INTERNAL },
    });
  };
}
