/** What one input line means, once parsed and validated. */
export type ParsedLine =
  | { kind: 'edge'; head: string; relation: string; tail: string }
  /** An N-Triples literal object: a property of the subject entity. */
  | { kind: 'property'; entity: string; key: string; value: string }
  /** Labels to add to an entity (a label file's line, an N-Triples `rdf:type`). */
  | { kind: 'labels'; entity: string; labels: string[] }
  /** `fatal`: the whole file is unusable (a CSV header without the needed columns). */
  | { kind: 'invalid'; reason: string; fatal?: boolean }
  /** Blank lines, comments, a CSV header. */
  | { kind: 'skip' };

/** Parses one line (without its line break). Parsers may keep state (the CSV header). */
export interface LineParser {
  parse(line: string): ParsedLine;
}

export type IngestFormat = 'tsv' | 'csv' | 'nt';
export const INGEST_FORMATS: readonly IngestFormat[] = ['tsv', 'csv', 'nt'];
