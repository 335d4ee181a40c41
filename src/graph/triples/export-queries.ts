/**
 * The property that marks an accepted prediction: an edge with `source = 'prediction'` was
 * written back from a model's suggestion (the write-back sets it, with the model version,
 * score and who accepted it). Edges without it are facts. docs/ingest.md states the rule.
 */
export const PROVENANCE_PROPERTY = 'source';
export const PREDICTION_SOURCE = 'prediction';

/**
 * Every (:Entity)-[r]->(:Entity) edge, one record per head: `h` and its out-edges as
 * `[type, tail id]` pairs, plain strings only. Grouping by head cuts the record count ~20x on
 * FB15k-237, and per-record decoding dominates the stream's cost (measured: about 1.5x faster
 * than one record per edge). `$relations` null means all types. Unordered: the exporter sorts.
 */
export const STREAM_EDGES = `
MATCH (h:Entity)
WITH h, [(h)-[r]->(t:Entity)
  WHERE ($relations IS NULL OR type(r) IN $relations)
    AND ($includePredictions OR r.${PROVENANCE_PROPERTY} IS NULL OR r.${PROVENANCE_PROPERTY} <> '${PREDICTION_SOURCE}')
  | [type(r), t.id]] AS out
WHERE size(out) > 0
RETURN h.id AS h, out`;
