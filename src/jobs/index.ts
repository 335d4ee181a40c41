export { runRetrainJob } from './retrain-job';
export type { RetrainOptions, RetrainResult } from './retrain-types';
export type { GateResult } from './promotion-gate';
export { RetrainWorker } from './retrain-worker';
export type { WorkerOptions } from './retrain-worker';
export type { ChildJobRequest, ChildMessage } from './child-job';
