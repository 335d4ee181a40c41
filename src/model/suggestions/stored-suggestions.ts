import fs from 'node:fs';
import path from 'node:path';
import { readSuggestionsBin, SUGGESTIONS_BIN } from './suggestions-bin';
import { readSuggestionsJson, SUGGESTIONS_FILE } from './suggestions-file';
import type { SuggestionsFile } from './suggestions-file';
import type { StoredSuggestions } from './suggestion-types';

/** The file a version's suggestions are read from: suggestions.bin, else an older .json. */
export function suggestionsPath(dir: string): string | undefined {
  for (const name of [SUGGESTIONS_BIN, SUGGESTIONS_FILE]) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) return file;
  }
  return undefined;
}

function fromJson(file: SuggestionsFile): StoredSuggestions {
  const { version, createdAt, perRelation, entities } = file;
  return {
    version,
    createdAt,
    perRelation,
    entities,
    lists: file.relations.map((r) => ({
      relation: r.relation,
      direction: r.direction,
      typed: r.typed,
      count: r.rows.length,
    })),
    columns: (i) => {
      const rows = file.relations[i]?.rows ?? [];
      return {
        heads: Uint32Array.from(rows, (r) => r[0]),
        tails: Uint32Array.from(rows, (r) => r[1]),
        logits: Float32Array.from(rows, (r) => r[2]),
        probabilities: Float64Array.from(rows, (r) => r[3]),
      };
    },
  };
}

/** The version's suggestions (suggestions.bin, or an older suggestions.json); undefined: none. */
export function openSuggestions(dir: string): StoredSuggestions | undefined {
  const bin = readSuggestionsBin(dir);
  if (bin) return bin;
  const json = readSuggestionsJson(dir);
  return json && fromJson(json);
}

/** The version's suggestions with every row as a JS array (export, tests), or undefined. */
export function readSuggestionsFile(dir: string): SuggestionsFile | undefined {
  const stored = openSuggestions(dir);
  if (!stored) return undefined;
  const { version, createdAt, perRelation, entities } = stored;
  return {
    format: 1,
    version,
    createdAt,
    perRelation,
    entities,
    relations: stored.lists.map((list, i) => {
      const c = stored.columns(i);
      return {
        relation: list.relation,
        direction: list.direction,
        typed: list.typed,
        rows: Array.from(
          c.heads,
          (h, j) =>
            [h, c.tails[j], c.logits[j], c.probabilities[j]] as [number, number, number, number],
        ),
      };
    }),
  };
}
