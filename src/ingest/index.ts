export { ingestFile, DEFAULT_BATCH_SIZE } from './ingest-file';
export type { IngestOptions, IngestSummary } from './ingest-file';
export { INGEST_FORMATS } from './parsed-line';
export type { IngestFormat, LineParser, ParsedLine } from './parsed-line';
export { createParser, formatFromPath, parseFormat } from './parsers/parser-for';
export { DEFAULT_CSV_COLUMNS } from './parsers/csv-parser';
export type { CsvColumns } from './parsers/csv-parser';
export { MAX_ID_LENGTH } from './validate-id';
export type { IngestProgress } from './ingest-progress';
