import { ErrorCode, KgcError } from '../../errors';
import { INGEST_FORMATS, type IngestFormat, type LineParser } from '../parsed-line';
import { CsvParser, DEFAULT_CSV_COLUMNS, type CsvColumns } from './csv-parser';
import { NTriplesParser } from './ntriples-parser';
import { TsvParser } from './tsv-parser';

export function createParser(
  format: IngestFormat,
  columns: CsvColumns = DEFAULT_CSV_COLUMNS,
): LineParser {
  switch (format) {
    case 'tsv':
      return new TsvParser();
    case 'csv':
      return new CsvParser(columns);
    case 'nt':
      return new NTriplesParser();
  }
}

/** The format named by the file's extension (a trailing `.gz` ignored); tsv when unknown. */
export function formatFromPath(file: string): IngestFormat {
  const name = file.toLowerCase().replace(/\.gz$/, '');
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.nt') || name.endsWith('.ntriples')) return 'nt';
  return 'tsv';
}

export function parseFormat(value: string): IngestFormat {
  if ((INGEST_FORMATS as readonly string[]).includes(value)) return value as IngestFormat;
  throw new KgcError(
    ErrorCode.INGEST_INVALID_INPUT,
    `Unknown format "${value}": use one of ${INGEST_FORMATS.join(', ')}.`,
  );
}
