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
 * Suggestions held named in memory at most (about 100 bytes each: 50 MB): the lists asked for
 * least recently are dropped past it and named again from the file's views when asked for.
 */
export const MAX_HELD_SUGGESTIONS = 500_000;

/**
 * A version's suggestions (suggestions.bin, or an older version's suggestions.json) as the API
 * reads it: read when first asked for and again only when the file changed (a later `kgc
 * suggest` replaces it under a serving version), so a version without the file still loads and
 * serves. The binary file is read as views, so a reload costs one read, not a parse. Each
 * (relation, direction)'s list is named when first asked for and kept while the lists held stay
 * within `maxHeld` suggestions (least recently asked for dropped first; one list is always kept).
 */
export class ServedSuggestions {
  private cached: { stamp: string; file: StoredSuggestions | undefined } | undefined;
  /** Named lists, least recently asked for first (a Map keeps insertion order). */
  private readonly lists = new Map<string, SuggestionList>();
  private held = 0;

  constructor(
    private readonly dir: string,
    private readonly entities: readonly string[],
    private readonly maxHeld = MAX_HELD_SUGGESTIONS,
  ) {}

  /** Suggestions held named in memory now (the `kgc_suggestions_held` gauge). */
  get heldSuggestions(): number {
    return this.held;
  }

  /** The stored list of (relation, direction), most probable first; undefined: none stored. */
  list(relation: string, direction: Direction): SuggestionList | undefined {
    const file = this.file();
    if (!file) return undefined;
    const key = `${direction}\u0000${relation}`;
    const known = this.lists.get(key);
    if (known?.createdAt === file.createdAt) {
      // Most recently asked for: last to go.
      this.lists.delete(key);
      this.lists.set(key, known);
      return known;
    }
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
    this.hold(key, list);
    return list;
  }

  private hold(key: string, list: SuggestionList): void {
    const previous = this.lists.get(key);
    if (previous) this.held -= previous.items.length;
    this.lists.delete(key);
    this.lists.set(key, list);
    this.held += list.items.length;
    for (const [oldest, dropped] of this.lists) {
      if (this.held <= this.maxHeld || oldest === key) break;
      this.lists.delete(oldest);
      this.held -= dropped.items.length;
    }
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
      this.held = 0;
    }
    return this.cached.file;
  }
}
