// Provenance of accepted predictions moves to kgc_-prefixed edge properties, so it never collides
// with a user's own edge properties (src/graph/predictions/provenance.ts). Only edges the
// write-back wrote are renamed: source = 'prediction' with who and when it was accepted. Batched
// (the runner sends each statement as an auto-commit query, as CALL IN TRANSACTIONS needs), so a
// big graph never holds one huge transaction; idempotent: a renamed edge no longer matches, so a
// run that stopped half way is simply run again.
MATCH ()-[e]->()
WHERE e.source = 'prediction' AND e.acceptedBy IS NOT NULL AND e.acceptedAt IS NOT NULL
  AND e.kgc_source IS NULL
CALL (e) {
  SET e.kgc_source = 'prediction', e.kgc_model_version = e.modelVersion, e.kgc_logit = e.logit,
      e.kgc_probability = e.probability, e.kgc_accepted_by = e.acceptedBy,
      e.kgc_accepted_at = e.acceptedAt
  REMOVE e.source, e.modelVersion, e.logit, e.probability, e.acceptedBy, e.acceptedAt
} IN TRANSACTIONS OF 10000 ROWS;
