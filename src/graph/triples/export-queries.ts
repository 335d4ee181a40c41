/**
 * The property that marks an accepted prediction: an edge with `source = 'prediction'` was
 * written back from a model's suggestion (the write-back sets it, with the model version,
 * score and who accepted it). Edges without it are facts. docs/ingest.md states the rule.
 */
export const PROVENANCE_PROPERTY = 'source';
export const PREDICTION_SOURCE = 'prediction';

/**
 * Every (:Entity)-[r]->(:Entity) edge as three plain strings (no node objects: far less to
 * decode). `$relations` null means all types. Unordered: the exporter sorts by id.
 */
export const STREAM_EDGES = `
MATCH (h:Entity)-[r]->(t:Entity)
WHERE ($relations IS NULL OR type(r) IN $relations)
  AND ($includePredictions OR r.${PROVENANCE_PROPERTY} IS NULL OR r.${PROVENANCE_PROPERTY} <> '${PREDICTION_SOURCE}')
RETURN h.id AS h, type(r) AS r, t.id AS t`;
