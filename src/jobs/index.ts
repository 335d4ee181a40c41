export { runRetrainJob } from './retrain-job';
export type { RetrainOptions, RetrainResult } from './retrain-types';
export type { GateResult } from './promotion-gate';
export { RetrainWorker } from './retrain-worker';
export type { WorkerOptions } from './retrain-worker';
export { trainFromGraph } from './train-from-graph';
export type {
  GraphTrainingOptions,
  GraphTrainingResult,
  TrainingRequest,
} from './train-from-graph';
