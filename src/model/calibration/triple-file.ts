import fs from 'node:fs';
import { ErrorCode, KgcError } from '../../errors';

/** Triples of a file, in a model's ids; lines naming what the model does not know are counted. */
export interface ModelTriples {
  /** Flat [h, r, t, ...]. */
  ids: Uint32Array;
  /** Lines skipped: an entity or relation the model was not trained with. */
  unknown: number;
}

export interface Vocabulary {
  entity(id: string): number | undefined;
  relation(name: string): number | undefined;
}

/** A dataset file's text; one that is missing or unreadable is the user's input, named. */
function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'unreadable';
    throw new KgcError(ErrorCode.BAD_USER_INPUT, `${file}: ${why}.`);
  }
}

/**
 * Reads a `head<TAB>relation<TAB>tail` file as the engine does (blank lines skipped, a trailing
 * CR tolerated, anything else three non-empty fields), refusing a malformed line by number.
 */
export function readTripleFile(file: string, vocabulary: Vocabulary): ModelTriples {
  const ids: number[] = [];
  let unknown = 0;
  const lines = readText(file).split('\n');
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const fields = line.split('\t');
    const empty = fields.findIndex((f) => f.trim() === '');
    if (fields.length !== 3 || empty >= 0) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `${file} line ${i + 1}: expected 3 non-empty tab-separated fields (head, relation, tail).`,
      );
    }
    const h = vocabulary.entity(fields[0] as string);
    const r = vocabulary.relation(fields[1] as string);
    const t = vocabulary.entity(fields[2] as string);
    if (h === undefined || r === undefined || t === undefined) unknown++;
    else ids.push(h, r, t);
  });
  return { ids: Uint32Array.from(ids), unknown };
}
