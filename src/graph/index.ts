export { Database } from './database';
export type { ConnectionTarget, DatabaseOptions, Work } from './database';
export { mapNeo4jError } from './neo4j-errors';
export { localNeo4jFromConfig, openDatabase, resolveConnection } from './connection';
export { LocalNeo4j } from './local/local-neo4j';
export type { LocalNeo4jOptions, LocalNeo4jStatus } from './local/local-neo4j';
export { MigrationRunner } from './migrations/migration-runner';
export type { MigrationOptions, MigrationStatus } from './migrations/migration-runner';
export { MigrationLock } from './migrations/migration-lock';
export { TripleWriter } from './triples/triple-writer';
export type { BatchResult, PropertyRow, TripleRow } from './triples/triple-writer';
export { streamOutEdges } from './triples/edge-stream';
export type { EdgeFilter } from './triples/edge-stream';
export { PREDICTION_SOURCE, PROVENANCE_PROPERTY } from './triples/export-queries';
export { knownAnswersBatch } from './predictions/known-answers';
export type { KnownAnswers, KnownAnswersQuery } from './predictions/known-answers';
export { idProblem, MAX_ID_LENGTH, relationshipTypeLiteral } from './identifiers';
export {
  entitiesById,
  findEntity,
  relationCounts,
  relationInGraph,
} from './entities/entity-queries';
export type { EntityRecord, RelationCount } from './entities/entity-queries';
export { checkEdgeKey, rejectionKey } from './predictions/edge-key';
export type { EdgeKey } from './predictions/edge-key';
export {
  acceptPredictions,
  rejectPrediction,
  revertAcceptedPrediction,
  undoRejection,
} from './predictions/write-back';
export type { AcceptedEdge, AcceptRequest, ModelScore, Rejection } from './predictions/write-back';
export { DECISION_KINDS, listDecisions, parseDecisionCursor } from './predictions/decision-log';
export type { DecisionKind, DecisionPage, DecisionRecord } from './predictions/decision-log';
export { edgesPresent } from './triples/edges-present';
