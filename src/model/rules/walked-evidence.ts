import type { Evidence } from './rule-evidence';

/** One question's walk as the engine returns it (or a slice of a batch's). */
export interface WalkedArrays {
  /** The candidates reached, in the order first reached. */
  candidates: Uint32Array;
  max: Float64Array;
  noisyOr: Float64Array;
  rules: Uint32Array;
}

/** Lookups answered by a scan before the candidates are sorted for binary search. */
const SCANNED_LOOKUPS = 8;

/**
 * One question's rule evidence by candidate, as the engine walked it: typed arrays in the order
 * first reached (the order of the TypeScript walk's map), read by position (`candidate(i)`,
 * `aggregate(i, ...)`) or by candidate (`get`, `has`) without building a map.
 */
export class WalkedEvidence implements Iterable<[number, Evidence]> {
  private lookups = 0;
  /** Positions in ascending candidate order, once enough lookups ask for it. */
  private sorted: Uint32Array | undefined;

  constructor(private readonly walked: WalkedArrays) {}

  /** Evidence kept as a map (a subset of a walk, a test's). */
  static fromEntries(entries: Iterable<[number, Evidence]>): WalkedEvidence {
    const list = [...entries];
    return new WalkedEvidence({
      candidates: Uint32Array.from(list, ([candidate]) => candidate),
      max: Float64Array.from(list, ([, e]) => e.max),
      noisyOr: Float64Array.from(list, ([, e]) => e.noisyOr),
      rules: Uint32Array.from(list, ([, e]) => e.rules),
    });
  }

  get size(): number {
    return this.walked.candidates.length;
  }

  /** The i-th candidate reached. */
  candidate(i: number): number {
    return this.walked.candidates[i] as number;
  }

  /** The i-th candidate's evidence aggregated as `by`. */
  aggregate(i: number, by: 'max' | 'noisyOr'): number {
    return this.walked[by][i] as number;
  }

  /** The i-th candidate's evidence. */
  at(i: number): Evidence {
    const { max, noisyOr, rules } = this.walked;
    return { max: max[i] as number, noisyOr: noisyOr[i] as number, rules: rules[i] as number };
  }

  /** The position of `candidate` in the walk, or -1. */
  private position(candidate: number): number {
    const { candidates } = this.walked;
    if (this.sorted === undefined && this.lookups++ < SCANNED_LOOKUPS) {
      return candidate >= 0 ? candidates.indexOf(candidate) : -1;
    }
    const sorted = (this.sorted ??= Uint32Array.from(candidates.keys()).sort(
      (a, b) => (candidates[a] as number) - (candidates[b] as number),
    ));
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((candidates[sorted[mid] as number] as number) < candidate) lo = mid + 1;
      else hi = mid;
    }
    const at = sorted[lo];
    return at !== undefined && candidates[at] === candidate ? at : -1;
  }

  get(candidate: number): Evidence | undefined {
    const i = this.position(candidate);
    return i < 0 ? undefined : this.at(i);
  }

  has(candidate: number): boolean {
    return this.position(candidate) >= 0;
  }

  /** The candidates in the order first reached. */
  keys(): Iterable<number> {
    return this.walked.candidates;
  }

  *[Symbol.iterator](): Iterator<[number, Evidence]> {
    for (let i = 0; i < this.size; i++) yield [this.candidate(i), this.at(i)];
  }
}

/** Question q's slice of a batch walked together (`offsets[q]..offsets[q + 1]`). */
export function batchSlice(
  batch: WalkedArrays & { offsets: Uint32Array },
  q: number,
): WalkedEvidence {
  const [from, to] = [batch.offsets[q] as number, batch.offsets[q + 1] as number];
  return new WalkedEvidence({
    candidates: batch.candidates.subarray(from, to),
    max: batch.max.subarray(from, to),
    noisyOr: batch.noisyOr.subarray(from, to),
    rules: batch.rules.subarray(from, to),
  });
}
