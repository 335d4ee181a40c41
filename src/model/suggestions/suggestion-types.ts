import type { Direction } from '../../direction';

/** One relation and direction's suggestions as columns, most probable first. */
export interface SuggestionColumns {
  heads: Uint32Array;
  tails: Uint32Array;
  logits: Float32Array;
  probabilities: Float64Array;
}

/** What a stored list is of. */
export interface SuggestionListInfo {
  relation: string;
  direction: Direction;
  /** Whether candidates were limited to the relation's learned domain and range. */
  typed: boolean;
}

export interface SuggestionsHeader {
  version: string;
  /** ISO 8601; a cursor names it, so a cursor of replaced suggestions is refused. */
  createdAt: string;
  perRelation: number;
  entities: number;
}

/** A version's stored suggestions: the lists, and each one's columns read when asked for. */
export interface StoredSuggestions extends SuggestionsHeader {
  lists: (SuggestionListInfo & { count: number })[];
  /** List `i`'s rows (views of the file where it is suggestions.bin; checked on first use). */
  columns(i: number): SuggestionColumns;
}
