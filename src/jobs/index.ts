export { runRetrainJob } from './retrain-job';
export type { RetrainResult } from './retrain-types';
export { RetrainWorker } from './retrain-worker';
export type { ChildJobRequest, ChildMessage } from './child-job';
