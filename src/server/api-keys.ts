import crypto from 'node:crypto';
import type { ApiKeyEntry, ApiRole } from '../config';

export function sha256(text: string): Buffer {
  return crypto.createHash('sha256').update(text, 'utf8').digest();
}

/**
 * The entry whose hash matches `key`. Every entry is compared, in constant time, whatever
 * matches: the time taken says nothing about which key (or how much of one) was right.
 */
export function findApiKey(entries: readonly ApiKeyEntry[], key: string): ApiKeyEntry | undefined {
  const digest = sha256(key);
  let found: ApiKeyEntry | undefined;
  for (const entry of entries) {
    if (crypto.timingSafeEqual(digest, entry.sha256) && !found) found = entry;
  }
  return found;
}

/** A new random key (256 bits, base64url) and the KGC_API_KEYS entry that admits it. */
export function createApiKey(name: string, role: ApiRole): { key: string; entry: string } {
  const key = `kgc_${crypto.randomBytes(32).toString('base64url')}`;
  return { key, entry: `${name}:${role}:${sha256(key).toString('hex')}` };
}
