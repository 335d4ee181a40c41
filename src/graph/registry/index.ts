export { DEFAULT_SCOPE } from './registry-scope';
export {
  getActiveVersion,
  getVersion,
  listVersions,
  promoteVersion,
  recordGate,
  registerVersion,
  rejectVersion,
  rollbackVersion,
} from './model-versions';
export type {
  ActiveVersion,
  ModelVersionRecord,
  NewVersion,
  PromotionResult,
  VersionStatus,
} from './model-versions';
export {
  finishTrainingRun,
  getTrainingRun,
  listTrainingRuns,
  markInterruptedRuns,
  startTrainingRun,
  updateRunProgress,
} from './training-runs';
export type {
  RunOutcome,
  RunPage,
  RunProgress,
  RunStatus,
  TrainingRunRecord,
} from './training-runs';
export { acquireLease, getLease, releaseLease, renewLease } from './job-lease';
export type { LeaseAttempt, LeaseState } from './job-lease';
export { pendingRetrainRequests, requestRetraining } from './retrain-requests';
export type { RetrainRequest } from './retrain-requests';
