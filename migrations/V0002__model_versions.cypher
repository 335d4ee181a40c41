// Trained model versions (weights on disk, registry here); at most one is promoted for serving.
CREATE CONSTRAINT model_version_id_unique IF NOT EXISTS
FOR (m:ModelVersion) REQUIRE m.id IS UNIQUE;
CREATE INDEX model_version_status IF NOT EXISTS
FOR (m:ModelVersion) ON (m.status);
