export { bulkIngest } from './bulk-ingest';
export type { BulkIngestOptions, BulkIngestSummary } from './bulk-ingest';
export type { BulkProgress } from './bulk-progress';
export { writeImportFiles } from './import-files';
export type { ImportFileCounts } from './import-files';
export { writeImportFilesInto } from './import-files-into';
export { importInstructions, remoteBulkRefused } from './import-instructions';
export { TripleSet } from './triple-set';
