import type { LineParser, ParsedLine } from '../parsed-line';
import { checkedEdge } from '../validate-id';
import { splitCsvRecord } from './csv-fields';

export interface CsvColumns {
  head: string;
  relation: string;
  tail: string;
}

export const DEFAULT_CSV_COLUMNS: CsvColumns = { head: 'head', relation: 'relation', tail: 'tail' };

/**
 * CSV whose first non-blank line is a header naming the head, relation and tail columns (other
 * columns are ignored). A record is one line. Fields are taken verbatim, unquoted.
 */
export class CsvParser implements LineParser {
  private indexes: [number, number, number] | undefined;
  private width = 0;

  constructor(private readonly columns: CsvColumns = DEFAULT_CSV_COLUMNS) {}

  parse(line: string): ParsedLine {
    if (line.length === 0) return { kind: 'skip' };
    const fields = splitCsvRecord(line);
    if (!fields) return { kind: 'invalid', reason: 'unbalanced double quote in a CSV field' };
    if (!this.indexes) return this.readHeader(fields);
    if (fields.length !== this.width) {
      return {
        kind: 'invalid',
        reason: `expected ${this.width} comma-separated columns (as in the header), found ${fields.length}`,
      };
    }
    const [h, r, t] = this.indexes;
    return checkedEdge(fields[h] as string, fields[r] as string, fields[t] as string);
  }

  private readHeader(fields: string[]): ParsedLine {
    const names = fields.map((f) => f.trim());
    const find = (role: keyof CsvColumns) => names.indexOf(this.columns[role]);
    const indexes: [number, number, number] = [find('head'), find('relation'), find('tail')];
    const missing = (['head', 'relation', 'tail'] as const).filter((_, i) => indexes[i] === -1);
    if (missing.length > 0) {
      const wanted = missing.map((role) => `"${this.columns[role]}"`).join(', ');
      return {
        kind: 'invalid',
        fatal: true,
        reason:
          `the CSV header has no column ${wanted} (it has ${names.map((n) => `"${n}"`).join(', ')}); ` +
          'name the columns with --head-column, --relation-column and --tail-column',
      };
    }
    this.indexes = indexes;
    this.width = fields.length;
    return { kind: 'skip' };
  }
}
