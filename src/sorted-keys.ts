/**
 * Whether `key` is in `sorted` (ascending numbers), by binary search. Sets of millions of
 * numeric keys live in sorted Float64Arrays rather than JS Sets: 8 bytes a key instead of a
 * heap number and a hash entry each, and no limit (a Set holds at most 2^24 entries).
 */
export function hasKey(sorted: Float64Array, key: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo] === key;
}
