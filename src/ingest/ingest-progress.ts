/**
 * How far an ingest is, reported after every chunk read: `fraction` of the file's bytes, lines
 * and edges so far. Ingest only reports; the CLI draws it.
 */
export interface IngestProgress {
  phase: 'validate' | 'write';
  fraction: number;
  lines: number;
  triples: number;
  seconds: number;
}
