export { DEFAULT_STRUCTURE, learnTypes } from './learn-types';
export type { TypesInput } from './learn-types';
export { candidateMask, ServingTypes } from './serving-types';
export { readTypesFile, writeTypesFile } from './types-file';
export type { StructureSettings } from './types-file';
export { evaluateTyped, readDatasetArrays, trainSplitTypes } from './typed-evaluation';
