import { ErrorCode, KgcError } from '../errors';

export const API_ROLES = ['reader', 'admin'] as const;
export type ApiRole = (typeof API_ROLES)[number];

/** One configured key: only the SHA-256 of the key is kept, never the key itself. */
export interface ApiKeyEntry {
  name: string;
  role: ApiRole;
  /** 32 bytes. */
  sha256: Buffer;
}

const NAME = /^[A-Za-z0-9_.@-]{1,64}$/;

/**
 * `KGC_API_KEYS`: comma-separated `name:role:sha256hex` entries (`npx kgc apikey create` prints
 * one). A bad entry names its position and the part that is wrong, never the hash itself.
 */
export function parseApiKeys(value: string | undefined): ApiKeyEntry[] {
  if (value === undefined) return [];
  const entries: ApiKeyEntry[] = [];
  const names = new Set<string>();
  // Hash (hex, lower case) -> the name of the entry that has it.
  const hashes = new Map<string, string>();
  value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .forEach((part, i) => {
      const where = `KGC_API_KEYS entry ${i + 1}`;
      const fields = part.split(':');
      if (fields.length !== 3) {
        throw new KgcError(
          ErrorCode.INVALID_CONFIG,
          `${where} must be name:role:sha256hex (three fields), got ${fields.length} field(s).`,
        );
      }
      const [name, role, hex] = fields as [string, string, string];
      if (!NAME.test(name)) {
        throw new KgcError(
          ErrorCode.INVALID_CONFIG,
          `${where}: the name must be 1-64 letters, digits or _.@- characters.`,
        );
      }
      if (names.has(name)) {
        throw new KgcError(ErrorCode.INVALID_CONFIG, `${where}: the name "${name}" is used twice.`);
      }
      if (!(API_ROLES as readonly string[]).includes(role)) {
        throw new KgcError(
          ErrorCode.INVALID_CONFIG,
          `${where} ("${name}"): the role must be one of ${API_ROLES.join(', ')}, got "${role}".`,
        );
      }
      if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
        throw new KgcError(
          ErrorCode.INVALID_CONFIG,
          `${where} ("${name}"): the hash must be 64 hex digits (the key's SHA-256), not the key itself.`,
        );
      }
      const owner = hashes.get(hex.toLowerCase());
      if (owner !== undefined) {
        // Two names for one key: which name a request is logged under would be a guess.
        throw new KgcError(
          ErrorCode.INVALID_CONFIG,
          `${where} ("${name}"): its hash is the same as entry "${owner}"'s (one key under two names); give each name its own key (npx kgc apikey create).`,
        );
      }
      names.add(name);
      hashes.set(hex.toLowerCase(), name);
      entries.push({ name, role: role as ApiRole, sha256: Buffer.from(hex, 'hex') });
    });
  return entries;
}
