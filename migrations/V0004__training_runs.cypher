// Retraining runs: one node per run, with status, timings and metrics.
CREATE CONSTRAINT training_run_id_unique IF NOT EXISTS
FOR (t:TrainingRun) REQUIRE t.id IS UNIQUE;
CREATE INDEX training_run_started_at IF NOT EXISTS
FOR (t:TrainingRun) ON (t.startedAt);
