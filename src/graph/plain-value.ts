import {
  isDate,
  isDateTime,
  isDuration,
  isInt,
  isLocalDateTime,
  isLocalTime,
  isPoint,
  isTime,
} from 'neo4j-driver';

/**
 * A Neo4j property value as plain JSON: temporal values and durations as their ISO strings,
 * integers as numbers (or strings past 2^53), points as `{srid, x, y, z}`, lists element-wise.
 */
export function plainValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(plainValue);
  if (isInt(value)) return value.inSafeRange() ? value.toNumber() : value.toString();
  if (
    isDate(value) ||
    isDateTime(value) ||
    isLocalDateTime(value) ||
    isLocalTime(value) ||
    isTime(value) ||
    isDuration(value)
  ) {
    return value.toString();
  }
  if (isPoint(value)) {
    const srid = typeof value.srid === 'number' ? value.srid : Number(value.srid);
    return value.z === undefined
      ? { srid, x: value.x, y: value.y }
      : { srid, x: value.x, y: value.y, z: value.z };
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

export function plainProperties(properties: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(properties)) out[key] = plainValue(value);
  return out;
}

/** A stored `datetime` (or ISO string) as an ISO 8601 string with milliseconds, in UTC. */
export function isoTime(value: unknown): string {
  if (isDateTime(value)) return value.toStandardDate().toISOString();
  if (typeof value === 'string') return new Date(value).toISOString();
  throw new Error(`Not a stored time: ${String(value)}`);
}
