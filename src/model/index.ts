export { train } from './train';
export { epochsThatFit, planTimeBudget } from './time-budget';
export type { BudgetPlan } from './time-budget';
export { longerBudgetAdvice } from './longer-budget';
export type { ValidationPoint } from './longer-budget';
export type { TrainOptions, TrainSummary, TrainingProgress } from './train';
export { evaluate } from './evaluate';
export type { Split } from './evaluate';
export { Scorer } from './scorer';
export type { ScoredEntity, TopKOptions } from './scorer';
export { resolveTrainingConfig } from './training-settings';
export { graphSize } from './graph-size';
export type { GraphSize } from './graph-size';
export type { EngineConfig, TrainingOverrides } from './training-settings';
export type { TrainingArrays, TrainingData } from './training-data';
export type { Metrics, RankMetrics, RelationMetrics } from './metrics';
export { loadServingModel } from './serving-model';
export type { ServingModel } from './serving-model';
export {
  loadScorer,
  loadScorerAsync,
  ModelStore,
  openVersionDir,
  readVersionEdges,
} from './store/model-store';
export type { StoredVersion, VersionEdges } from './store/model-store';
export {
  CURVE_FILE,
  readVersionInfo,
  SNAPSHOT_KEYS_FILE,
  TRAINED_KEYS_FILE,
  writeKeys,
  writeVersionInfo,
} from './store/version-info';
export type { CurvePoint, SnapshotInfo, TrainingInfo, VersionInfo } from './store/version-info';
export { renderTrainingCurve } from './store/training-curve';
