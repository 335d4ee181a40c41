/** The steps of a bulk load, in order. */
export type BulkPhase = 'prepare' | 'stop' | 'import' | 'start' | 'migrate' | 'properties';

/**
 * How far a bulk load is. `prepare` (validating the input and writing the import files) reports
 * after every chunk read, `fraction` being the share of the input bytes read; `import` reports
 * as neo4j-admin does, `fraction` of the whole import, its current `stage` named; the other
 * phases report when they start. Bulk only reports; the CLI draws it.
 */
export interface BulkProgress {
  phase: BulkPhase;
  fraction: number;
  lines: number;
  triples: number;
  seconds: number;
  stage?: string;
}
