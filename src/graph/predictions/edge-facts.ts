import neo4j, { type Integer } from 'neo4j-driver';
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
  /** Whether the edge itself is in the graph now. */
  exists: boolean;
  /**
   * Tails of the (head, relation, ?) edges in the graph now (the tail among them if it exists);
   * one array shared by the call's edges of that head and relation.
   */
  existing: readonly string[];
  /** Tails of the rejected (head, relation, ?) predictions (shared likewise). */
  rejected: readonly string[];
}

/**
 * One read for a call: each distinct (head, relation) of `$pairs` has its known and rejected
 * tails read once (a hub's list once, however many edges name it), returned with the first row;
 * row i answers `$edges[i]`, whose own edge is looked up from head to tail. COLLECT subqueries
 * keep one row per edge. db.relationshipTypes() lists the types in use.
 */
const EDGE_FACTS = `
CALL db.relationshipTypes() YIELD relationshipType
WITH collect(relationshipType) AS types
CALL {
  UNWIND $pairs AS p
  OPTIONAL MATCH (h:Entity {id: p.head})
  RETURN collect({
    existing: CASE WHEN h IS NULL THEN [] ELSE [(h)-[e]->(x:Entity) WHERE type(e) = p.relation | x.id] END,
    rejected: COLLECT { MATCH (r:RejectedPrediction {head: p.head, relation: p.relation}) RETURN r.tail }
  }) AS pairFacts
}
UNWIND range(0, size($edges) - 1) AS i
WITH i, types, pairFacts, $edges[i] AS q
OPTIONAL MATCH (h:Entity {id: q.head})
OPTIONAL MATCH (t:Entity {id: q.tail})
RETURN i,
  q.pair AS pair,
  h IS NOT NULL AS headExists,
  t IS NOT NULL AS tailExists,
  q.relation IN types AS relationInGraph,
  h IS NOT NULL AND t IS NOT NULL AND EXISTS { (h)-[e]->(t) WHERE type(e) = q.relation } AS exists,
  CASE WHEN i = 0 THEN pairFacts ELSE null END AS pairFacts`;

/** Read at query time, so an edge added or rejected a moment before the request counts. */
export async function edgeFactsBatch(
  db: Database,
  edges: readonly EdgeFactsQuery[],
): Promise<EdgeFacts[]> {
  if (edges.length === 0) return [];
  const pairIndex = new Map<string, number>();
  const pairs: { head: string; relation: string }[] = [];
  const params = edges.map(({ head, relation, tail }) => {
    const key = JSON.stringify([head, relation]);
    let pair = pairIndex.get(key);
    if (pair === undefined) {
      pair = pairs.length;
      pairIndex.set(key, pair);
      pairs.push({ head, relation });
    }
    return { head, relation, tail, pair: neo4j.int(pair) };
  });
  const result = await db.readQuery(EDGE_FACTS, { edges: params, pairs });
  const none: readonly string[] = [];
  const facts: EdgeFacts[] = edges.map(() => ({
    headExists: false,
    tailExists: false,
    relationInGraph: false,
    exists: false,
    existing: none,
    rejected: none,
  }));
  const pairFacts = (result.records[0]?.get('pairFacts') ?? []) as {
    existing: string[];
    rejected: string[];
  }[];
  for (const record of result.records) {
    const pair = pairFacts[toNumber(record.get('pair'))];
    facts[toNumber(record.get('i'))] = {
      headExists: record.get('headExists') as boolean,
      tailExists: record.get('tailExists') as boolean,
      relationInGraph: record.get('relationInGraph') as boolean,
      exists: record.get('exists') as boolean,
      existing: pair?.existing ?? none,
      rejected: pair?.rejected ?? none,
    };
  }
  return facts;
}

function toNumber(value: unknown): number {
  return neo4j.isInt(value) ? (value as Integer).toNumber() : (value as number);
}
