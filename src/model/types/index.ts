export { DEFAULT_STRUCTURE, learnTypes } from './learn-types';
export type { TypesInput } from './learn-types';
export { candidateMask, ServingTypes } from './serving-types';
export { readTypesFile, TYPES_FILE, writeTypesFile } from './types-file';
export type { OverlapMeasure, StructureSettings, TypesFile } from './types-file';
export { evaluateTyped, readDatasetArrays, trainSplitTypes } from './typed-evaluation';
export type { TypedEvaluation, TypedEvaluationOptions } from './typed-evaluation';
