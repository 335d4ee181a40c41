import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { ErrorCode, isKgcError } from '../errors';

/**
 * Clients see a stable `extensions.code` and a message that says what to do; internal errors
 * are reduced to a generic message (details stay in the server log).
 */
export function formatError(
  formatted: GraphQLFormattedError,
  error: unknown,
): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (isKgcError(original)) {
    return {
      ...formatted,
      message: original.message,
      extensions: { ...formatted.extensions, code: original.code },
    };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') return formatted;
  return {
    message: 'Internal error; the server log has the details.',
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: ErrorCode.INTERNAL },
  };
}
