/**
 * The relationship type of suggestions written into Neo4j for Cypher users (`kgc suggestions
 * export --to-neo4j`). Never a fact: the export, the training snapshot, relation counts and
 * known-edge reads leave it out, and no ingested or accepted edge may carry it.
 */
export const SUGGESTED_TYPE = 'KGC_SUGGESTED';

/** Why `relation` cannot name a relation of facts, or undefined when it can. */
export function reservedRelationProblem(what: string, relation: string): string | undefined {
  return relation === SUGGESTED_TYPE
    ? `${what} "${SUGGESTED_TYPE}" is reserved for suggestions written by \`kgc suggestions export --to-neo4j\``
    : undefined;
}
