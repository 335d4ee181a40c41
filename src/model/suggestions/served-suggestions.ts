import fs from 'node:fs';
import path from 'node:path';
import type { Direction } from '../../direction';
import { readSuggestionsFile, SUGGESTIONS_FILE } from './suggestions-file';
import type { SuggestionsFile } from './suggestions-file';

/** One stored suggestion with its entities named. */
export interface StoredSuggestion {
  head: string;
  tail: string;
  logit: number;
  probability: number;
}

export interface SuggestionList {
  /** The file's createdAt: `kgc suggest` replacing the file changes it. */
  createdAt: string;
  typed: boolean;
  items: StoredSuggestion[];
}

/**
 * A version's suggestions.json as the API reads it: read when first asked for and again only
 * when the file changed (a later `kgc suggest` replaces it under a serving version), so a
 * version without the file still loads and serves.
 */
export class ServedSuggestions {
  private cached: { stamp: string; file: SuggestionsFile | undefined } | undefined;
  private readonly lists = new Map<string, SuggestionList>();

  constructor(
    private readonly dir: string,
    private readonly entities: readonly string[],
  ) {}

  /** The stored list of (relation, direction), most probable first; undefined: none stored. */
  list(relation: string, direction: Direction): SuggestionList | undefined {
    const file = this.file();
    if (!file) return undefined;
    const key = `${direction}\u0000${relation}`;
    const known = this.lists.get(key);
    if (known?.createdAt === file.createdAt) return known;
    const entry = file.relations.find((r) => r.relation === relation && r.direction === direction);
    if (!entry) return undefined;
    const list: SuggestionList = {
      createdAt: file.createdAt,
      typed: entry.typed,
      items: entry.rows.map(([h, t, logit, probability]) => ({
        head: this.entities[h] ?? String(h),
        tail: this.entities[t] ?? String(t),
        logit,
        probability,
      })),
    };
    this.lists.set(key, list);
    return list;
  }

  private file(): SuggestionsFile | undefined {
    let stamp = 'absent';
    try {
      const stat = fs.statSync(path.join(this.dir, SUGGESTIONS_FILE));
      stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      // absent: no suggestions stored
    }
    if (this.cached?.stamp !== stamp) {
      this.cached = { stamp, file: stamp === 'absent' ? undefined : readSuggestionsFile(this.dir) };
      this.lists.clear();
    }
    return this.cached.file;
  }
}
