export { applyCalibrator, applyShrunk, sigmoid } from './calibrator';
export type { Calibrator, ShrunkCalibrator } from './calibrator';
export { fitPlatt } from './platt';
export { fitIsotonic, poolAdjacentViolators, ISOTONIC_CLIP } from './isotonic';
export {
  brierScore,
  calibrationMetrics,
  ECE_BINS,
  expectedCalibrationError,
  logLoss,
  reliabilityBins,
} from './calibration-metrics';
export type { CalibrationMetrics, ReliabilityBin } from './calibration-metrics';
export { chooseCalibrator, CV_FOLDS } from './choose-calibrator';
export { calibratedProbability, fitCalibrationTable, SHRINKAGE_PRIOR } from './fit-calibration';
export type { CalibrationTable, RelationCalibrator } from './fit-calibration';
export { buildCalibrationSet, negativeKeys, tripleKey } from './calibration-set';
export type { CalibrationSet, NegativeMix } from './calibration-set';
export { samplesOf } from './samples';
export type { Samples } from './samples';
export {
  CALIBRATION_FILE,
  readCalibrationFile,
  RELIABILITY_FILE,
  writeCalibrationFile,
} from './calibration-file';
export type { CalibrationFile, CalibrationSummary } from './calibration-file';
export { calibrate, calibrateModelDir, scoreSet, summaryOf } from './calibrate-model';
export type { CalibrationData, TripleScorer } from './calibrate-model';
export {
  calibrateDatasetModel,
  TEST_NEGATIVES_FILE,
  VALID_NEGATIVES_FILE,
} from './calibrate-dataset';
export type { DatasetCalibration } from './calibrate-dataset';
export { classifyTriples } from './classify';
export type { ClassificationReport } from './classify';
export { renderReliabilityDiagram } from './reliability-diagram';
export { servedProbability, servingCalibration } from './serving-calibration';
export type { ServingCalibration } from './serving-calibration';
