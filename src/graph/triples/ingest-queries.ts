/**
 * Cypher for ingest. Rows travel as lists (`[head, relation, tail]`) rather than maps: smaller
 * Bolt messages for the same data.
 */

/** Entities first, in their own transaction (see TripleWriter for why). */
export const MERGE_ENTITIES = `
UNWIND $ids AS id
MERGE (:Entity {id: id})`;

/**
 * Creates each `(h)-[:rel]->(t)` that does not exist yet. Not `MERGE (h)-[:$(row[1])]->(t)`:
 * on 5.26 a MERGE with a dynamic type is planned as a scan of every relationship per row
 * (DirectedAllRelationshipsScan, quadratic). Both endpoints are index-hinted, which pins the
 * plan to two unique-index seeks plus an Expand(Into) between the bound nodes for the existence
 * check; without the hints an empty (or just emptied) store gets a relationship-scan plan that
 * stays cached for the next batches. (An earlier version looked the tail up a second time
 * inside the check, through its own hinted index seek: measured 1.3x slower.)
 * Rows within one batch are distinct (the writer dedupes), so the check against the committed
 * graph is enough for idempotency.
 */
export const CREATE_MISSING_EDGES = `
UNWIND $rows AS row
MATCH (h:Entity {id: row[0]}) USING INDEX h:Entity(id)
MATCH (t:Entity {id: row[2]}) USING INDEX t:Entity(id)
WITH h, t, row
WHERE NOT EXISTS {
  MATCH (h)-[x]->(t)
  WHERE type(x) = row[1]
}
CREATE (h)-[:$(row[1])]->(t)`;

/**
 * N-Triples literals: `[entity, key, value]` sets one property on the subject entity (created if
 * absent). Setting the same value again is a no-op, so re-ingest stays idempotent.
 */
export const SET_ENTITY_PROPERTIES = `
UNWIND $rows AS row
MERGE (e:Entity {id: row[0]})
SET e[row[1]] = row[2]`;
