import type { Direction } from '../../direction';
import { readIfPresent, unusableFile } from './version-file';

/**
 * The suggestions.json of versions written before suggestions.bin (docs/lifecycle.md,
 * "Suggestions"): still read, never written.
 */
export const SUGGESTIONS_FILE = 'suggestions.json';

/** `[head index, tail index, logit, probability]` in the version's vocabulary. */
export type SuggestionRow = [number, number, number, number];

/** One relation and direction's best suggestions, most probable first. */
export interface RelationSuggestions {
  relation: string;
  direction: Direction;
  /** Whether candidates were limited to the relation's learned domain and range. */
  typed: boolean;
  rows: SuggestionRow[];
}

/** A version's suggestions with every row as a JS array (the export, and older files). */
export interface SuggestionsFile {
  format: 1;
  version: string;
  /** ISO 8601; a cursor names it, so a cursor of replaced suggestions is refused. */
  createdAt: string;
  perRelation: number;
  entities: number;
  relations: RelationSuggestions[];
}

function isRow(row: unknown): row is SuggestionRow {
  return (
    Array.isArray(row) &&
    row.length === 4 &&
    row.every((x) => typeof x === 'number' && Number.isFinite(x))
  );
}

/** An older version's suggestions.json, or undefined when it has none. */
export function readSuggestionsJson(dir: string): SuggestionsFile | undefined {
  const read = readIfPresent(dir, SUGGESTIONS_FILE);
  if (!read) return undefined;
  const text = read.toString('utf8');
  const bad = (why: string) => unusableFile(dir, SUGGESTIONS_FILE, why);
  let value: SuggestionsFile;
  try {
    value = JSON.parse(text) as SuggestionsFile;
  } catch {
    throw bad('not JSON');
  }
  if (value?.format !== 1 || !Array.isArray(value.relations)) throw bad('unknown format');
  for (const r of value.relations) {
    if (typeof r.relation !== 'string' || (r.direction !== 'tail' && r.direction !== 'head'))
      throw bad('a relation entry lacks its name or direction');
    if (!Array.isArray(r.rows) || !r.rows.every(isRow)) throw bad(`bad rows for ${r.relation}`);
  }
  return value;
}
