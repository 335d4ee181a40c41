import type { ParsedLine } from './parsed-line';

/**
 * Longest entity id or relation name accepted, in UTF-16 code units. Ids are indexed
 * (:Entity(id) is unique) and relation names become relationship types; both stay far below
 * Neo4j's limits at this length, and real ids are much shorter.
 */
export const MAX_ID_LENGTH = 1024;

// Tabs and line breaks would break the TSV that export writes; NUL is the dedupe separator.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `value` cannot be an id (`what` names the field), or undefined when it can. */
export function idProblem(what: string, value: string): string | undefined {
  if (value.length === 0) return `empty ${what}`;
  if (value.length > MAX_ID_LENGTH) {
    return `${what} is ${value.length} characters long; the limit is ${MAX_ID_LENGTH}`;
  }
  if (CONTROL.test(value))
    return `${what} contains a control character (tab, line break or similar)`;
  return undefined;
}

/** A validated edge, or the first problem found. */
export function checkedEdge(head: string, relation: string, tail: string): ParsedLine {
  const problem =
    idProblem('head id', head) ??
    idProblem('relation name', relation) ??
    idProblem('tail id', tail);
  return problem ? { kind: 'invalid', reason: problem } : { kind: 'edge', head, relation, tail };
}
