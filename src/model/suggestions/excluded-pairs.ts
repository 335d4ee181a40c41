import type { Native } from '../native-engine';
import type { Scorer } from '../scorer';

/**
 * A suggestions job's excluded edges (known and rejected) as JS can ask them: per relation,
 * the sorted keys `head * entities + tail` (exact in a float64 below 2^53), 8 bytes an edge.
 */
export class ExcludedPairs {
  private constructor(
    private readonly entities: number,
    private readonly keys: Float64Array,
    /** Relation r's keys are keys[offsets[r]..offsets[r + 1]]. */
    private readonly offsets: Uint32Array,
  ) {}

  static of(
    entities: number,
    relations: number,
    heads: Uint32Array,
    rels: Uint32Array,
    tails: Uint32Array,
  ): ExcludedPairs {
    const offsets = new Uint32Array(relations + 1);
    for (const r of rels) offsets[r + 1] = (offsets[r + 1] as number) + 1;
    for (let r = 0; r < relations; r++) {
      offsets[r + 1] = (offsets[r + 1] as number) + (offsets[r] as number);
    }
    const keys = new Float64Array(rels.length);
    const next = offsets.slice(0, relations);
    rels.forEach((r, i) => {
      keys[next[r] as number] = (heads[i] as number) * entities + (tails[i] as number);
      next[r] = (next[r] as number) + 1;
    });
    for (let r = 0; r < relations; r++) {
      keys.subarray(offsets[r] as number, offsets[r + 1] as number).sort();
    }
    return new ExcludedPairs(entities, keys, offsets);
  }

  has(head: number, relation: number, tail: number): boolean {
    const key = head * this.entities + tail;
    let lo = this.offsets[relation] ?? 0;
    let hi = this.offsets[relation + 1] ?? lo;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.keys[mid] as number) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo < (this.offsets[relation + 1] ?? 0) && this.keys[lo] === key;
  }
}

/** What a suggestions job never suggests, as the engine holds it and as JS asks it. */
export interface SuggestionExclusions {
  engine: Native.SuggestExclusions;
  pairs: ExcludedPairs;
}

/** The job's excluded edges (model ids, base relations) for the engine and for JS. */
export function suggestionExclusions(
  scorer: Scorer,
  heads: Uint32Array,
  relations: Uint32Array,
  tails: Uint32Array,
): SuggestionExclusions {
  return {
    engine: scorer.suggestExclusions(heads, relations, tails),
    pairs: ExcludedPairs.of(
      scorer.entities.length,
      scorer.relations.length,
      heads,
      relations,
      tails,
    ),
  };
}
