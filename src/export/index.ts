export { canonical, exportDenseGraph } from './dense-graph';
export type { DenseGraph } from './dense-graph';
export { splitTriples } from './split';
export type { SplitIndexes } from './split';
export { DEFAULT_STABLE_SPLIT, heldOutRate, stableSplit } from './stable-split';
export type { StableSplit, StableSplitOptions } from './stable-split';
export {
  changedKeys,
  fingerprint,
  hasKey,
  sortedKeys,
  tripleKeys,
  tripleKeysPaced,
} from './triple-keys';
export { exportToFiles } from './export-files';
export type { ExportProgress } from './export-progress';
