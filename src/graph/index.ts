export { Database } from './database';
export type { ConnectionTarget } from './database';
export { mapNeo4jError } from './neo4j-errors';
export { localNeo4jFromConfig, openDatabase } from './connection';
export { LocalNeo4j } from './local/local-neo4j';
export { MigrationRunner } from './migrations/migration-runner';
export { MigrationLock } from './migrations/migration-lock';
export { TripleWriter } from './triples/triple-writer';
export type { BatchResult, PropertyRow, TripleRow } from './triples/triple-writer';
export { streamEdgesByNode } from './triples/edge-stream';
export type { EdgeFilter } from './triples/edge-stream';
export { knownAnswersBatch } from './predictions/known-answers';
export { warmUpKnownAnswers } from './predictions/known-answers-warm-up';
export type { KnownAnswers } from './predictions/known-answers';
export { edgeFactsBatch } from './predictions/edge-facts';
export type { EdgeFacts } from './predictions/edge-facts';
export { idProblem, MAX_ID_LENGTH, textProblem } from './identifiers';
export { entitiesById } from './entities/entity-queries';
export { relationCounts, relationInGraph } from './entities/relation-counts';
export {
  countUnknownEntities,
  entityEdgeCount,
  entityNodeCount,
} from './entities/staleness-queries';
export type { EntityRecord } from './entities/entity-queries';
export { checkEdgeKey } from './predictions/edge-key';
export type { EdgeKey } from './predictions/edge-key';
export {
  acceptPredictions,
  rejectPrediction,
  revertAcceptedPrediction,
  undoRejection,
} from './predictions/write-back';
export type { ModelScore } from './predictions/write-back';
export { listDecisions, parseDecisionCursor } from './predictions/decision-log';
export { edgesPresent } from './triples/edges-present';
export { rejectionsOf } from './predictions/rejections';
export { reasonPathsBatch } from './predictions/reason-paths';
export type { PathEdge, ReasonPairAnswer, ReasonPairQuery } from './predictions/reason-paths';
export { REASON_READ_LIMITS } from './predictions/reason-paths';
export { reasonEdgesPresent } from './predictions/reason-edges';
export { warmUpReasonReads } from './predictions/reason-warm-up';
export { labelProblem, streamEntityLabels, writeEntityLabels } from './entities/entity-labels';
export type { LabelRow } from './entities/entity-labels';
export { reservedRelationProblem } from './suggestions/suggested-type';
export { replaceSuggestedEdges } from './suggestions/suggested-edges';
export type { SuggestedEdge } from './suggestions/suggested-edges';
export { decidedEdges } from './suggestions/decided-edges';
export { latestDecisions } from './suggestions/review-decisions';
export { entityNeighbourhoods, entityPages, graphChangeStamp } from './fold-in/fold-in-reads';
