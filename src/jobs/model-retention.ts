import path from 'node:path';
import type { Database } from '../graph';
import {
  listVersions,
  markVersionsPruned,
  protectedVersions,
  prunedVersions,
} from '../graph/registry';
import { ABANDONED_UPLOAD_AGE_MS, versionsToPrune } from '../model';
import type { ModelStore, SweepResult } from '../model';

export interface RetentionResult {
  /** Versions whose files were removed now. */
  removed: string[];
  /** How many versions of the scope remain on disk. */
  kept: number;
  /** With a remote store: what interrupted uploads left, older than ABANDONED_UPLOAD_AGE_MS. */
  swept?: SweepResult;
}

/**
 * Keeps at most `keep` of the scope's versions on disk (KGC_MODEL_KEEP), after a publish or a
 * promotion: never the active version, the version a rollback returns to, or a candidate still
 * being gated. Only versions this scope registered in this store are touched (other scopes may
 * share it). The registry marks a version pruned first, then its files go: a crash between the
 * two leaves files that the next run removes, never a registered version without its mark.
 * With a remote store, the versions are those it holds (registered under any machine's cache
 * directory), and they go from it and from this machine's cache; then what interrupted uploads
 * left there a day or more ago (incomplete multipart uploads, files of versions never marked
 * complete) is swept.
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
  const swept = await store.remote?.sweepAbandoned(new Date(Date.now() - ABANDONED_UPLOAD_AGE_MS));
  return { removed, kept: ours.length - removed.length, swept };
}

/** A line about what a sweep removed from the remote store; undefined when it removed nothing. */
export function describeSweep(swept: SweepResult): string | undefined {
  const { uploadsAborted, unmarkedRemoved } = swept;
  if (uploadsAborted === 0 && unmarkedRemoved.length === 0) return undefined;
  return (
    `swept the remote model store: ${uploadsAborted} incomplete multipart upload(s) aborted, ` +
    `${unmarkedRemoved.length} version(s) never marked complete removed` +
    `${unmarkedRemoved.length > 0 ? ` (${unmarkedRemoved.join(', ')})` : ''}`
  );
}
