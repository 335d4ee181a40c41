import type { Database } from '../database';

export interface EdgeFactsQuery {
  head: string;
  relation: string;
  tail: string;
}

/** What the graph knows now about an edge (head, relation, tail) and its (head, relation, ?). */
export interface EdgeFacts {
  headExists: boolean;
  tailExists: boolean;
  /** Whether any edge in the graph has this relation type. */
  relationInGraph: boolean;
  /** Tails of the (head, relation, ?) edges in the graph now (the tail among them if it exists). */
  existing: string[];
  /** Tails of the rejected (head, relation, ?) predictions. */
  rejected: string[];
}

/**
 * One read for all edges of a call: row i answers `$edges[i]`. Comprehensions and COLLECT
 * subqueries keep one row per edge. db.relationshipTypes() lists the types in use.
 */
const EDGE_FACTS = `
CALL db.relationshipTypes() YIELD relationshipType
WITH collect(relationshipType) AS types
UNWIND range(0, size($edges) - 1) AS i
WITH i, types, $edges[i] AS q
OPTIONAL MATCH (h:Entity {id: q.head})
OPTIONAL MATCH (t:Entity {id: q.tail})
RETURN i,
  h IS NOT NULL AS headExists,
  t IS NOT NULL AS tailExists,
  q.relation IN types AS relationInGraph,
  CASE WHEN h IS NULL THEN [] ELSE [(h)-[e]->(x:Entity) WHERE type(e) = q.relation | x.id] END AS existing,
  COLLECT { MATCH (p:RejectedPrediction {head: q.head, relation: q.relation}) RETURN p.tail } AS rejected`;

/** Read at query time, so an edge added or rejected a moment before the request counts. */
export async function edgeFactsBatch(
  db: Database,
  edges: readonly EdgeFactsQuery[],
): Promise<EdgeFacts[]> {
  if (edges.length === 0) return [];
  const params = edges.map(({ head, relation, tail }) => ({ head, relation, tail }));
  const result = await db.readQuery(EDGE_FACTS, { edges: params });
  const facts: EdgeFacts[] = edges.map(() => ({
    headExists: false,
    tailExists: false,
    relationInGraph: false,
    existing: [],
    rejected: [],
  }));
  for (const record of result.records) {
    facts[record.get('i') as number] = {
      headExists: record.get('headExists') as boolean,
      tailExists: record.get('tailExists') as boolean,
      relationInGraph: record.get('relationInGraph') as boolean,
      existing: record.get('existing') as string[],
      rejected: record.get('rejected') as string[],
    };
  }
  return facts;
}
