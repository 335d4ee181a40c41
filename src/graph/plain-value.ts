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
 * integers as numbers (or decimal strings past 2^53: lossless Integers, or the strings that
 * `losslessPropertyPairs` made), points as `{srid, x, y, z}`, lists element-wise.
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

/** 2^53 - 1: past it a JavaScript number no longer holds every integer. */
const MAX_SAFE = '9007199254740991';

/**
 * Cypher for a node's or relationship's properties as `[key, value]` pairs in which every
 * integer past 2^53 (and every such element of an integer list) is its decimal string. The
 * driver runs with `disableLosslessIntegers` (database.ts), which turns integers into numbers
 * and answers Infinity for any outside the safe range, without a word; read properties through this
 * and `propertiesFromPairs`. `variable` is a name from the query's own text, never input.
 */
export function losslessPropertyPairs(variable: string): string {
  const big = (x: string) => `(${x} > ${MAX_SAFE} OR ${x} < -${MAX_SAFE})`;
  return `[k IN keys(${variable}) | [k, CASE
  WHEN ${variable}[k] IS :: INTEGER NOT NULL AND ${big(`${variable}[k]`)} THEN toString(${variable}[k])
  WHEN ${variable}[k] IS :: LIST<INTEGER NOT NULL> NOT NULL
    THEN [x IN ${variable}[k] | CASE WHEN ${big('x')} THEN toString(x) ELSE x END]
  ELSE ${variable}[k] END]]`;
}

/** The pairs of `losslessPropertyPairs` as a plain JSON object (as plainProperties does). */
export function propertiesFromPairs(
  pairs: readonly (readonly [string, unknown])[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of pairs) out[key] = plainValue(value);
  return out;
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
