/**
 * Cypher for the write-back (write-back.ts). Provenance property names are the `kgc_` ones of
 * provenance.ts, written out; values come as parameters (`$prediction`).
 */

export const ENDPOINTS = `
OPTIONAL MATCH (h:Entity {id: $head})
OPTIONAL MATCH (t:Entity {id: $tail})
RETURN h IS NOT NULL AS head, t IS NOT NULL AS tail`;

// Writing the head takes its lock, so concurrent decisions on the same head run one after the
// other and an edge is never created twice (the property set and removed leaves no trace).
// The edge is locked too: an ingest that turns it into a fact (ingest-queries.ts) locks it
// before it reads its source, so the two never both act on a stale read.
export const LOCK_AND_FIND_EDGE = `
MATCH (h:Entity {id: $head}), (t:Entity {id: $tail})
SET h.__kgcLock = true
REMOVE h.__kgcLock
WITH h, t
OPTIONAL MATCH (h)-[e]->(t) WHERE type(e) = $relation
WITH e LIMIT 1
FOREACH (x IN CASE WHEN e IS NULL THEN [] ELSE [e] END | SET x.__kgcLock = true REMOVE x.__kgcLock)
RETURN e {.*} AS edge`;

export const CREATE_ACCEPTED = `
MATCH (h:Entity {id: $head}), (t:Entity {id: $tail})
CREATE (h)-[e:$($relation)]->(t)
SET e.kgc_source = $prediction, e.kgc_model_version = $modelVersion, e.kgc_logit = $logit,
    e.kgc_probability = $probability, e.kgc_accepted_by = $by, e.kgc_accepted_at = datetime($at)
WITH count(e) AS created
OPTIONAL MATCH (p:RejectedPrediction {key: $key})
DELETE p`;

export const DELETE_EDGE = `
MATCH (h:Entity {id: $head})-[e]->(t:Entity {id: $tail})
WHERE type(e) = $relation AND e.kgc_source = $prediction
DELETE e`;

export const FIND_REJECTION = `MATCH (p:RejectedPrediction {key: $key}) RETURN p {.*} AS p`;

export const CREATE_REJECTION = `
CREATE (:RejectedPrediction {key: $key, head: $head, relation: $relation, tail: $tail,
  reason: $reason, rejectedBy: $by, rejectedAt: datetime($at), modelVersion: $modelVersion})`;

export const DELETE_REJECTION = `MATCH (p:RejectedPrediction {key: $key}) DELETE p`;
