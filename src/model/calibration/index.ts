export { applyCalibrator, applyShrunk, sigmoid } from './calibrator';
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
export { chooseCalibrator } from './choose-calibrator';
export { calibratedProbability, fitCalibrationTable, SHRINKAGE_PRIOR } from './fit-calibration';
export type { CalibrationTable } from './fit-calibration';
export { buildCalibrationSet, negativeKeys, tripleKey } from './calibration-set';
export { samplesOf } from './samples';
export { CALIBRATION_FILE, readCalibrationFile, writeCalibrationFile } from './calibration-file';
export type { CalibrationFile, CalibrationSummary } from './calibration-file';
export { calibrate, calibrateModelDir } from './calibrate-model';
export type { TripleScorer } from './calibrate-model';
export { calibrateDatasetModel } from './calibrate-dataset';
export { classifyTriples } from './classify';
export {
  servedEdgeProbability,
  servedProbability,
  servingCalibration,
} from './serving-calibration';
export { edgeProbability, fitEdgeCalibration } from './edge-calibration';
export type { EdgeFeatures } from './edge-calibration';
export { countingGraph, edgeFeatures } from './role-counts';
export type { ServingCalibration } from './serving-calibration';
