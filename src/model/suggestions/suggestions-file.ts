import fs from 'node:fs';
import path from 'node:path';
import type { Direction } from '../../direction';
import { ErrorCode, KgcError } from '../../errors';
import { fsyncPath } from '../store/durable-files';

/** A version's suggestions across the graph (docs/lifecycle.md, "Suggestions"). */
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

export interface SuggestionsFile {
  format: 1;
  version: string;
  /** ISO 8601; a cursor names it, so a cursor of replaced suggestions is refused. */
  createdAt: string;
  perRelation: number;
  entities: number;
  relations: RelationSuggestions[];
}

/**
 * Orders rows most probable first; equal probabilities (isotonic calibration has plateaus) by
 * logit, then head and tail index, so every reader pages the same order.
 */
export function sortRows(rows: SuggestionRow[]): SuggestionRow[] {
  return rows.sort((a, b) => b[3] - a[3] || b[2] - a[2] || a[0] - b[0] || a[1] - b[1]);
}

/** Writes the file atomically (tmp, fsync, rename, fsync of the directory): whole or absent. */
export function writeSuggestionsFile(dir: string, file: SuggestionsFile): void {
  const target = path.join(dir, SUGGESTIONS_FILE);
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(file));
    fsyncPath(tmp);
    fs.renameSync(tmp, target);
    fsyncPath(dir);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw new KgcError(
      ErrorCode.EXPORT_WRITE_FAILED,
      `Could not write ${SUGGESTIONS_FILE} in ${dir}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function isRow(row: unknown): row is SuggestionRow {
  return (
    Array.isArray(row) &&
    row.length === 4 &&
    row.every((x) => typeof x === 'number' && Number.isFinite(x))
  );
}

/** The version's suggestions, or undefined when it has none (older versions, or never run). */
export function readSuggestionsFile(dir: string): SuggestionsFile | undefined {
  const file = path.join(dir, SUGGESTIONS_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const bad = (why: string) =>
    new KgcError(
      ErrorCode.MODEL_INVALID,
      `${SUGGESTIONS_FILE} in ${path.basename(dir)} is unusable (${why}): run \`npx kgc suggest\` to write it again.`,
    );
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
