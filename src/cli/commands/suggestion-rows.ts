import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import type { SuggestionsFile } from '../../model';

export const SUGGESTION_FORMATS = ['tsv', 'csv', 'jsonl'] as const;
export type SuggestionFormat = (typeof SUGGESTION_FORMATS)[number];

/** One exported suggestion. */
export interface SuggestionRecord {
  head: string;
  relation: string;
  tail: string;
  direction: 'tail' | 'head';
  probability: number;
  logit: number;
  modelVersion: string;
}

const COLUMNS = [
  'head',
  'relation',
  'tail',
  'direction',
  'probability',
  'logit',
  'modelVersion',
] as const;

/** The file's suggestions as named records, filtered; most probable first within a relation. */
export function suggestionRecords(
  file: SuggestionsFile,
  entities: readonly string[],
  filter: { relations?: string[]; minProbability?: number },
): SuggestionRecord[] {
  const wanted = filter.relations ? new Set(filter.relations) : undefined;
  const out: SuggestionRecord[] = [];
  for (const entry of file.relations) {
    if (wanted && !wanted.has(entry.relation)) continue;
    for (const [h, t, logit, probability] of entry.rows) {
      if (filter.minProbability !== undefined && probability < filter.minProbability) continue;
      out.push({
        head: entities[h] as string,
        relation: entry.relation,
        tail: entities[t] as string,
        direction: entry.direction,
        probability,
        logit,
        modelVersion: file.version,
      });
    }
  }
  return out;
}

/**
 * A text cell a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or
 * a carriage return) gets a leading `'`, as OWASP's CSV-injection guidance says: ids come from
 * the graph, and anyone who can ingest one can name an entity `=HYPERLINK(...)`. Numbers are
 * ours and stay numbers (a negative logit is not a formula).
 */
function neutralised(value: string | number): string | number {
  return typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The records in `format`, a header first for tsv and csv (ids hold no tab or line break), their
 * text cells neutralised for spreadsheets; jsonl stays raw.
 */
export function formatSuggestions(records: SuggestionRecord[], format: SuggestionFormat): string {
  if (format === 'jsonl') return records.map((r) => `${JSON.stringify(r)}\n`).join('');
  const line = (values: (string | number)[]) =>
    format === 'csv'
      ? `${values.map(neutralised).map(csvField).join(',')}\r\n`
      : `${values.map(neutralised).join('\t')}\n`;
  return [line([...COLUMNS]), ...records.map((r) => line(COLUMNS.map((c) => r[c])))].join('');
}

/** Writes `text` to `file` whole or not at all (temporary file, then rename). */
export function writeWhole(file: string, text: string): void {
  const tmp = path.join(
    path.dirname(path.resolve(file)),
    `.${path.basename(file)}.tmp-${process.pid}`,
  );
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw new KgcError(
      ErrorCode.EXPORT_WRITE_FAILED,
      `Could not write ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
