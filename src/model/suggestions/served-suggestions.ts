import fs from 'node:fs';
import type { Direction } from '../../direction';
import { openSuggestions, suggestionsPath } from './stored-suggestions';
import type { StoredSuggestions } from './suggestion-types';

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
 * A version's suggestions (suggestions.bin, or an older version's suggestions.json) as the API
 * reads it: read when first asked for and again only when the file changed (a later `kgc
 * suggest` replaces it under a serving version), so a version without the file still loads and
 * serves. The binary file is read as views, so a reload costs one read, not a parse.
 */
export class ServedSuggestions {
  private cached: { stamp: string; file: StoredSuggestions | undefined } | undefined;
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
    const at = file.lists.findIndex((r) => r.relation === relation && r.direction === direction);
    if (at < 0) return undefined;
    const c = file.columns(at);
    const name = (e: number) => this.entities[e] ?? String(e);
    const list: SuggestionList = {
      createdAt: file.createdAt,
      typed: (file.lists[at] as { typed: boolean }).typed,
      items: Array.from(c.heads, (h, i) => ({
        head: name(h),
        tail: name(c.tails[i] as number),
        logit: c.logits[i] as number,
        probability: c.probabilities[i] as number,
      })),
    };
    this.lists.set(key, list);
    return list;
  }

  private file(): StoredSuggestions | undefined {
    let stamp = 'absent';
    const file = suggestionsPath(this.dir);
    try {
      const stat = fs.statSync(file ?? '');
      stamp = `${file}:${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch {
      // absent: no suggestions stored
    }
    if (this.cached?.stamp !== stamp) {
      this.cached = { stamp, file: stamp === 'absent' ? undefined : openSuggestions(this.dir) };
      this.lists.clear();
    }
    return this.cached.file;
  }
}
