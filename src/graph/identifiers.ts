/**
 * What may be an entity id or a relation name, for every writer alike (ingest and write-back):
 * relation names become relationship types and ids are indexed, so both are checked before any
 * Cypher sees them.
 */

/**
 * Longest entity id or relation name accepted, in UTF-16 code units. Ids are indexed
 * (:Entity(id) is unique) and relation names become relationship types; both stay far below
 * Neo4j's limits at this length, and real ids are much shorter.
 */
export const MAX_ID_LENGTH = 1024;

// Tabs and line breaks would break the TSV that export writes; NUL is the dedupe separator.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

// Half of a surrogate pair: Neo4j stores text as UTF-8, where it would silently become U+FFFD.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `value` cannot be stored as it is (`what` names the field), or undefined when it can. */
export function textProblem(what: string, value: string): string | undefined {
  if (LONE_SURROGATE.test(value)) {
    return `${what} contains a lone surrogate (\\uD800-\\uDFFF without its pair): not valid Unicode`;
  }
  return undefined;
}

/** Why `value` cannot be an id (`what` names the field), or undefined when it can. */
export function idProblem(what: string, value: string): string | undefined {
  if (value.length === 0) return `empty ${what}`;
  if (value.length > MAX_ID_LENGTH) {
    return `${what} is ${value.length} characters long; the limit is ${MAX_ID_LENGTH}`;
  }
  if (CONTROL.test(value))
    return `${what} contains a control character (tab, line break or similar)`;
  return textProblem(what, value);
}
