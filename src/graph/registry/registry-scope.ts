/**
 * Registry nodes (versions, runs, the lease, requests) carry a `scope`: several deployments can
 * share one database with separate registries, and tests on a shared server stay apart.
 */
export const DEFAULT_SCOPE = 'default';

/** Neo4j `timestamp()` values (ms) as ISO strings; null stays null. */
export function isoTime(ms: unknown): string | null {
  return typeof ms === 'number' ? new Date(ms).toISOString() : null;
}

export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
