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
export type { ActiveVersion, ModelVersionRecord } from './model-versions';
export {
  finishTrainingRun,
  listTrainingRuns,
  markInterruptedRuns,
  startTrainingRun,
  updateRunProgress,
} from './training-runs';
export type { RunProgress, TrainingRunRecord } from './training-runs';
export { acquireLease, getLease, releaseLease, renewLease } from './job-lease';
export type { LeaseToken } from './job-lease';
export { pendingRetrainRequests, requestRetraining } from './retrain-requests';
export {
  markVersionsPruned,
  promotedVersions,
  protectedVersions,
  prunedVersions,
} from './version-pruning';
