import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { ErrorCode, isKgcError } from '../errors';

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
      return withDebug({
        ...formatted,
        message: original.message,
        extensions: { ...extensions, code: original.code },
      });
    }
    const code = extensions.code;
    if (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') {
      return withDebug({ ...formatted, extensions });
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
