import path from 'node:path';
import type { Database } from '../graph';
import {
  listVersions,
  markVersionsPruned,
  protectedVersions,
  prunedVersions,
} from '../graph/registry';
import { versionsToPrune } from '../model';
import type { ModelStore } from '../model';

export interface RetentionResult {
  /** Versions whose files were removed now. */
  removed: string[];
  /** How many versions of the scope remain on disk. */
  kept: number;
}

/**
 * Keeps at most `keep` of the scope's versions on disk (KGC_MODEL_KEEP), after a publish or a
 * promotion: never the active version, the version a rollback returns to, or a candidate still
 * being gated. Only versions this scope registered in this store are touched (other scopes may
 * share it). The registry marks a version pruned first, then its files go: a crash between the
 * two leaves files that the next run removes, never a registered version without its mark.
 * With a remote store, the versions are those it holds (registered under any machine's cache
 * directory), and they go from it and from this machine's cache.
 */
export async function applyRetention(
  db: Database,
  store: ModelStore,
  keep: number,
  scope: string,
): Promise<RetentionResult> {
  const stored = new Set(await store.versions());
  const inThisStore = (v: { version: string; dir: string }) =>
    store.remote !== undefined || path.resolve(v.dir) === path.resolve(store.dir(v.version));
  const ours = (await listVersions(db, scope)).filter(
    (v) => stored.has(v.version) && inThisStore(v),
  );
  const pruned = await prunedVersions(db, scope);
  const live = ours.filter((v) => !pruned.has(v.version)).map((v) => v.version);
  const doomed = versionsToPrune(live, keep, await protectedVersions(db, scope));
  const marked = await markVersionsPruned(db, doomed, scope);
  const leftovers = ours.filter((v) => pruned.has(v.version)).map((v) => v.version);
  const removed: string[] = [];
  for (const v of [...leftovers, ...marked]) if (await store.prune(v)) removed.push(v);
  return { removed, kept: ours.length - removed.length };
}
