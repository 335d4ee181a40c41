// Model lifecycle (docs/lifecycle.md). At most one active version per registry scope: only the
// active version carries `activeScope`, and the database enforces its uniqueness.
CREATE CONSTRAINT model_version_active_scope_unique IF NOT EXISTS
FOR (m:ModelVersion) REQUIRE m.activeScope IS UNIQUE;
// One node per scope that promote and rollback lock, so they run one after another.
CREATE CONSTRAINT model_registry_scope_unique IF NOT EXISTS
FOR (r:ModelRegistry) REQUIRE r.scope IS UNIQUE;
// The training lease: one job at a time per scope, across every worker and `kgc train`.
CREATE CONSTRAINT job_lease_scope_unique IF NOT EXISTS
FOR (l:JobLease) REQUIRE l.scope IS UNIQUE;
// Retraining requests, consumed by the next job that starts.
CREATE CONSTRAINT retrain_request_id_unique IF NOT EXISTS
FOR (q:RetrainRequest) REQUIRE q.id IS UNIQUE;
CREATE INDEX retrain_request_scope IF NOT EXISTS
FOR (q:RetrainRequest) ON (q.scope, q.consumedAt);
