export { ingestFile, DEFAULT_BATCH_SIZE } from './ingest-file';
export type { IngestSummary } from './ingest-file';
export type { IngestFormat } from './parsed-line';
export { createParser, parseFormat } from './parsers/parser-for';
export { DEFAULT_CSV_COLUMNS } from './parsers/csv-parser';
export { MAX_ID_LENGTH } from './validate-id';
export type { IngestProgress } from './ingest-progress';
export type { BatchSplit } from './write-batch';
