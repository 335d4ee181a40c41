export { train } from './train';
export { budgetTrainOptions, describePlan, epochsThatFit, planTimeBudget } from './time-budget';
export { longerBudgetAdvice } from './longer-budget';
export { KEPT_DESCRIPTION, tune } from './tuning/tune';
export type { TuneResult } from './tuning/tune';
export { chooseTunedSettings, saveTunedSettings } from './tuning/tuned-settings';
export type { TrainingDevice, TrainingProgress, TrainSummary } from './train';
export type { RankQuery, ScoredEntity } from './scorer';
export type { GraphSize } from './graph-size';
export { evaluate } from './evaluate';
export type { Split } from './evaluate';
export { Scorer } from './scorer';
export { resolveTrainingConfig, TRAINING_LOSSES } from './training-settings';
export type { TrainingLoss } from './training-settings';
export { graphSize } from './graph-size';
export type { EngineConfig, TrainingOverrides } from './training-settings';
export type { TrainingArrays } from './training-data';
export {
  describeWarmStart,
  warmStartIncompatibility,
  warmStartSchedule,
} from './warm-start-schedule';
export type { GraphChange, WarmStartRecord } from './warm-start-schedule';
export type { Metrics, RankMetrics } from './metrics';
export { loadServingModel, loadServingModelAsync } from './serving-model';
export type { ServingModel } from './serving-model';
export { servingEdgeProbability, servingProbability } from './serving-probability';
export { loadScorer, ModelStore, openVersionDir, readVersionEdges } from './store/model-store';
export { openModelStore } from './store/open-model-store';
export { isVersionId } from './store/version-id';
export { ABANDONED_UPLOAD_AGE_MS, isStoreFailure } from './store/version-mirror';
export type { SweepResult } from './store/version-mirror';
export {
  CURVE_FILE,
  SNAPSHOT_KEYS_FILE,
  TRAINED_KEYS_FILE,
  writeKeys,
  writeVersionInfo,
} from './store/version-info';
export type { CurvePoint, TuningInfo, VersionInfo } from './store/version-info';
export { renderTrainingCurve } from './store/training-curve';
export { readVersionDiagram } from './store/version-diagrams';
export { versionsToPrune } from './store/retention';
export {
  calibrateDatasetModel,
  calibrateModelDir,
  classifyTriples,
  readCalibrationFile,
} from './calibration';
export type { CalibrationFile, CalibrationSummary } from './calibration';
export {
  dirRules,
  edgeRuleEvidence,
  mineVersionRules,
  readRules,
  rulePaths,
  stepNeighbours,
  WalkedQuestions,
  AnsweredQuestions,
} from './rules';
export { withRuleEvidence } from './with-rule-evidence';
export type { GraphIndex, PathSearchLimits, Rule } from './rules';
export {
  candidateMask,
  DEFAULT_STRUCTURE,
  evaluateTyped,
  readDatasetArrays,
  trainSplitTypes,
  learnTypes,
  readTypesFile,
  ServingTypes,
  writeTypesFile,
} from './types';
export type { StructureSettings, TypesInput } from './types';
export {
  openSuggestions,
  readSuggestionsFile,
  suggestRelation,
  suggestionExclusions,
  SuggestionsWriter,
} from './suggestions';
export type { StoredSuggestion, SuggestionsFile } from './suggestions';
export { FoldInService } from './fold-in/fold-in-service';
export { writeCanaryFile } from './fold-in/canary-file';
export { combineDatasetModel } from './combine-dataset-model';
export { servedRanks } from './served-ranks';
export { evaluateServed, servedMetrics } from './evaluate-served';
