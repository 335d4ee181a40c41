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
MATCH (h:Entity {id: id}) USING INDEX SEEK h:Entity(id)
SET h.__kgcLock = true
REMOVE h.__kgcLock`;

/**
 * Creates each `(h)-[:rel]->(t)` that does not exist yet (its head locked: LOCK_HEADS). Every
 * node is found through the id index, by hint, so no plan depends on the store's statistics:
 * a store with few relationships (a fresh one, when the first batches are planned, and the
 * plan stays cached) otherwise gets plans that scan relationships or expand from one end,
 * which a hub (a tail of 20,000 edges) turns quadratic: minutes per batch. `USING INDEX SEEK`,
 * not `USING INDEX`, which a full scan of the index also satisfies. Not
 * `MERGE (h)-[:$(row[1])]->(t)`: on 5.26 a MERGE with a dynamic type is planned as a scan of
 * every relationship per row (DirectedAllRelationshipsScan). The existence check goes through
 * an index-hinted `t2` for the same reason: with both ends bound instead, a fresh store got a
 * relationship-scan plan (bench/ingest/RESULTS.md). test/integration/ingest/ingest-at-scale
 * checks every plan on a fresh store and a warm one.
 * Rows within one batch are distinct (the writer dedupes), so the check against the committed
 * graph is enough for idempotency.
 */
export const CREATE_MISSING_EDGES = `
UNWIND $rows AS row
MATCH (h:Entity {id: row[0]}) USING INDEX SEEK h:Entity(id)
MATCH (t:Entity {id: row[2]}) USING INDEX SEEK t:Entity(id)
WITH h, t, row
WHERE NOT EXISTS {
  MATCH (h)-[x]->(t2:Entity {id: row[2]}) USING INDEX SEEK t2:Entity(id)
  WHERE type(x) = row[1]
}
CREATE (h)-[:$(row[1])]->(t)`;

/**
 * An ingested edge that exists as an accepted prediction becomes a fact: `kgc_source` turns from
 * `$prediction` to `$ingest` with the time (the `kgc_accepted_*` history stays), so a later
 * revert refuses it (provenance.ts). The SET locks each such edge; the head is locked already
 * (LOCK_HEADS), as a revert locks it, so the two never both act on a stale read. The edge is
 * found as CREATE_MISSING_EDGES checks it, in a subquery from the seeked head to a seeked `t2`:
 * written as one pattern, a store with few relationships got an expand from `t` over all of its
 * edges per row (20 million reads for one 50k batch with one hub), and with `t` seeked on its
 * own, an index scan for `t` or a hash join fed by that expand.
 */
export const CONFIRM_ACCEPTED_PREDICTIONS = `
UNWIND $rows AS row
MATCH (h:Entity {id: row[0]}) USING INDEX SEEK h:Entity(id)
WITH row, COLLECT {
  MATCH (h)-[e]->(t2:Entity {id: row[2]}) USING INDEX SEEK t2:Entity(id)
  WHERE type(e) = row[1] AND e.kgc_source = $prediction
  RETURN e
} AS predictions
UNWIND predictions AS e
SET e.kgc_source = $ingest, e.kgc_confirmed_at = datetime()
RETURN count(e) AS confirmed`;

/**
 * Rows whose head or tail entity is missing (deleted by someone else after this writer MERGEd
 * it): such an edge was not written and must be counted as a failure, not as already present.
 */
export const COUNT_MISSING_ENDPOINTS = `
UNWIND $rows AS row
WITH row
WHERE NOT EXISTS { MATCH (h:Entity {id: row[0]}) USING INDEX SEEK h:Entity(id) }
   OR NOT EXISTS { MATCH (t:Entity {id: row[2]}) USING INDEX SEEK t:Entity(id) }
RETURN count(*) AS missing`;

/**
 * N-Triples literals: `[entity, key, value]` sets one property on the subject entity (created if
 * absent). Setting the same value again is a no-op, so re-ingest stays idempotent.
 */
export const SET_ENTITY_PROPERTIES = `
UNWIND $rows AS row
MERGE (e:Entity {id: row[0]})
SET e[row[1]] = row[2]`;
