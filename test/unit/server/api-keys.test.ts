import { loadConfig } from '../../../src/config';
import { ErrorCode } from '../../../src/errors';
import { createApiKey, findApiKey, sha256 } from '../../../src/server/api-keys';
import { authenticate } from '../../../src/server/authenticate';

describe('API keys', () => {
  it('creates random keys whose config entry admits exactly that key', () => {
    const a = createApiKey('ops', 'admin');
    const b = createApiKey('app', 'reader');
    expect(a.key).not.toBe(b.key);
    expect(a.entry).toBe(`ops:admin:${sha256(a.key).toString('hex')}`);
    expect(a.entry).not.toContain(a.key);
    const { api } = loadConfig({ KGC_API_KEYS: `${a.entry}, ${b.entry}` });
    expect(findApiKey(api.keys, a.key)?.name).toBe('ops');
    expect(findApiKey(api.keys, b.key)?.role).toBe('reader');
    expect(findApiKey(api.keys, `${a.key}x`)).toBeUndefined();
  });

  it('refuses malformed KGC_API_KEYS entries, naming the entry and never echoing a hash', () => {
    const hash = 'ab'.repeat(32);
    const cases: [string, RegExp][] = [
      ['ops:admin', /entry 1 must be name:role:sha256hex/],
      [`ops:root:${hash}`, /entry 1 \("ops"\): the role must be one of reader, admin/],
      ['ops:admin:not-a-hash', /the hash must be 64 hex digits/],
      [`ops:admin:${hash},ops:reader:${hash}`, /entry 2: the name "ops" is used twice/],
      [`bad name:admin:${hash}`, /the name must be/],
      // One key under two names (the hash compared case-blind: it is the same key).
      [
        `ops:admin:${hash},app:reader:${hash.toUpperCase()}`,
        /KGC_API_KEYS entry 2 \("app"\): its hash is the same as entry "ops"'s/,
      ],
    ];
    for (const [value, message] of cases) {
      expect(() => loadConfig({ KGC_API_KEYS: value })).toThrow(message);
      try {
        loadConfig({ KGC_API_KEYS: value });
      } catch (error) {
        expect((error as { code: string }).code).toBe(ErrorCode.INVALID_CONFIG);
        expect((error as Error).message.toLowerCase()).not.toContain(hash);
      }
    }
  });

  it('authenticates Bearer keys; anonymous only where allowed', () => {
    const admin = createApiKey('ops', 'admin');
    const open = loadConfig({}).api;
    expect(authenticate(undefined, open)).toBeNull();
    const locked = loadConfig({ KGC_API_KEYS: admin.entry }).api;
    expect(authenticate(`Bearer ${admin.key}`, locked)).toEqual({ name: 'ops', role: 'admin' });
    expect(authenticate(`bearer  ${admin.key} `, locked)).toEqual({ name: 'ops', role: 'admin' });
    for (const header of [undefined, 'Bearer nope', `Basic ${admin.key}`, 'Bearer']) {
      expect(() => authenticate(header, locked)).toThrow(
        expect.objectContaining({ code: ErrorCode.UNAUTHENTICATED }),
      );
    }
    const anonymousReads = loadConfig({
      KGC_API_KEYS: admin.entry,
      KGC_ANONYMOUS_READS: 'true',
    }).api;
    expect(authenticate(undefined, anonymousReads)).toBeNull();
    expect(() => authenticate('Bearer wrong', anonymousReads)).toThrow(
      expect.objectContaining({ code: ErrorCode.UNAUTHENTICATED }),
    );
  });
});
