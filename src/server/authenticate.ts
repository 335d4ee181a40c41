import type { ApiConfig } from '../config';
import { ErrorCode, KgcError } from '../errors';
import type { Caller } from '../resolvers';
import { findApiKey } from './api-keys';

/**
 * Who sent the request, from `Authorization: Bearer <key>`, before any GraphQL runs. A key
 * that matches no entry is refused (UNAUTHENTICATED), as is a request without a key when keys
 * are configured and anonymous reads are off. Anonymous callers get null: reads only (mutations
 * check roles in the resolvers).
 */
export function authenticate(header: string | undefined, api: ApiConfig): Caller | null {
  if (header === undefined || header.trim() === '') {
    if (api.keys.length > 0 && !api.anonymousReads) {
      throw new KgcError(
        ErrorCode.UNAUTHENTICATED,
        'This API needs a key: send "Authorization: Bearer <key>" (an operator creates keys with `npx kgc apikey create`).',
      );
    }
    return null;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    throw new KgcError(
      ErrorCode.UNAUTHENTICATED,
      'The Authorization header must be "Bearer <key>".',
    );
  }
  const entry = findApiKey(api.keys, match[1] as string);
  if (!entry) throw new KgcError(ErrorCode.UNAUTHENTICATED, 'The API key is not valid.');
  return { name: entry.name, role: entry.role };
}
