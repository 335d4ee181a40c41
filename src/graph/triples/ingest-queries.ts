/**
 * Cypher for ingest. Rows travel as lists (`[head, relation, tail]`) rather than maps: smaller
 * Bolt messages for the same data.
 */

/** Entities first, in their own transaction (see TripleWriter for why). */
export const MERGE_ENTITIES = `
UNWIND $ids AS id
MERGE (:Entity {id: id})`;

/**
 * Takes the write lock of each head, in the order given (sorted: lock-order.ts), before the
 * edges are checked and created in the same transaction: two writers of the same edge then run
 * one after the other, so the second sees the first's edge instead of creating it again.
 * Write-back locks the head the same way. SET and REMOVE leave no trace.
 */
export const LOCK_HEADS = `
UNWIND $ids AS id
MATCH (h:Entity {id: id})
SET h.__kgcLock = true
REMOVE h.__kgcLock`;

/**
 * Creates each `(h)-[:rel]->(t)` that does not exist yet (its head locked: LOCK_HEADS). Not `MERGE (h)-[:$(row[1])]->(t)`:
 * on 5.26 a MERGE with a dynamic type is planned as a scan of every relationship per row
 * (DirectedAllRelationshipsScan, quadratic). The existence check goes through an index-hinted
 * `t2`, which pins the plan to an index seek plus an expand; without the hint an empty (or
 * just emptied) store gets a relationship-scan plan that stays cached for the next batches.
 * Do not "simplify" the check to `MATCH (h)-[x]->(t)` with both ends bound: measured about 1.1x
 * faster on a warm server, but on a fresh store (no relationships when the second batch is
 * planned) it got the DirectedAllRelationshipsScan plan and one 50k batch ran for over ten
 * minutes (bench/ingest/RESULTS.md).
 * Rows within one batch are distinct (the writer dedupes), so the check against the committed
 * graph is enough for idempotency.
 */
export const CREATE_MISSING_EDGES = `
UNWIND $rows AS row
MATCH (h:Entity {id: row[0]})
MATCH (t:Entity {id: row[2]})
WITH h, t, row
WHERE NOT EXISTS {
  MATCH (h)-[x]->(t2:Entity {id: row[2]}) USING INDEX t2:Entity(id)
  WHERE type(x) = row[1]
}
CREATE (h)-[:$(row[1])]->(t)`;

/**
 * An ingested edge that exists as an accepted prediction becomes a fact: `kgc_source` turns from
 * `$prediction` to `$ingest` with the time (the `kgc_accepted_*` history stays), so a later
 * revert refuses it (provenance.ts). The SET locks each such edge, so a revert that read it as
 * a prediction a moment before either commits first (and the writer's second
 * CREATE_MISSING_EDGES puts the fact back) or waits and then reads it as a fact. The index hint
 * pins the plan to a seek plus an expand, as for CREATE_MISSING_EDGES.
 */
export const CONFIRM_ACCEPTED_PREDICTIONS = `
UNWIND $rows AS row
MATCH (h:Entity {id: row[0]})
MATCH (h)-[e]->(t:Entity {id: row[2]}) USING INDEX t:Entity(id)
WHERE type(e) = row[1] AND e.kgc_source = $prediction
SET e.kgc_source = $ingest, e.kgc_confirmed_at = datetime()
RETURN count(e) AS confirmed`;

/**
 * Rows whose head or tail entity is missing (deleted by someone else after this writer MERGEd
 * it): such an edge was not written and must be counted as a failure, not as already present.
 */
export const COUNT_MISSING_ENDPOINTS = `
UNWIND $rows AS row
WITH row
WHERE NOT EXISTS { MATCH (:Entity {id: row[0]}) } OR NOT EXISTS { MATCH (:Entity {id: row[2]}) }
RETURN count(*) AS missing`;

/**
 * N-Triples literals: `[entity, key, value]` sets one property on the subject entity (created if
 * absent). Setting the same value again is a no-op, so re-ingest stays idempotent.
 */
export const SET_ENTITY_PROPERTIES = `
UNWIND $rows AS row
MERGE (e:Entity {id: row[0]})
SET e[row[1]] = row[2]`;
