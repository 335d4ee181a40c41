/**
 * Which versions retention removes. `protect` (the active version, the version a rollback returns
 * to, candidates a job is still gating) are always kept and count toward `keep`; the rest of the
 * `keep` places go to the newest of `present` (ids sort by creation time). So the store holds
 * `keep` versions, or only the protected ones where they alone are more. Returns the ids to
 * remove, oldest first.
 */
export function versionsToPrune(
  present: readonly string[],
  keep: number,
  protect: readonly (string | null | undefined)[],
): string[] {
  if (!Number.isInteger(keep) || keep < 1) {
    throw new RangeError(`keep must be a positive integer, got ${keep}`);
  }
  const newestFirst = [...new Set(present)].sort().reverse();
  const kept = new Set(
    protect.filter((v): v is string => typeof v === 'string' && newestFirst.includes(v)),
  );
  for (const v of newestFirst) {
    if (kept.size >= keep) break;
    kept.add(v);
  }
  return newestFirst.filter((v) => !kept.has(v)).reverse();
}
