export { ingestFile, DEFAULT_BATCH_SIZE } from './ingest-file';
export type { IngestOptions, IngestSummary } from './ingest-file';
export { INGEST_FORMATS } from './parsed-line';
export type { IngestFormat, LineParser, ParsedLine } from './parsed-line';
export { createParser, formatFromPath, parseFormat } from './parsers/parser-for';
export { DEFAULT_CSV_COLUMNS } from './parsers/csv-parser';
export type { CsvColumns } from './parsers/csv-parser';
export { MAX_ID_LENGTH } from './validate-id';
export { barProgress, logProgress, silentProgress } from './progress';
export type { ProgressSink, ProgressState } from './progress';
export { canonical, exportDenseGraph } from './export/dense-graph';
export type { DenseGraph } from './export/dense-graph';
export { splitTriples } from './export/split';
export type { SplitIndexes, SplitOptions } from './export/split';
export { DEFAULT_STABLE_SPLIT, heldOutRate, stableSplit } from './export/stable-split';
export type { StableSplit, StableSplitOptions } from './export/stable-split';
export {
  changedKeys,
  fingerprint,
  hasKey,
  sortedKeys,
  tripleKey,
  tripleKeys,
} from './export/triple-keys';
export type { TripleKeys } from './export/triple-keys';
export { exportToFiles } from './export/export-files';
export type { ExportOptions, ExportSummary } from './export/export-files';
export { writeTripleFile } from './export/write-triple-files';
export {
  DEMO_PREFIX,
  DEMO_RELATIONS,
  demoSamplePerson,
  demoTriples,
  demoWorld,
  writeDemoGraph,
} from './demo-graph';
export type { DemoWorld } from './demo-graph';
