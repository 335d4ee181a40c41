import { ErrorCode, KgcError } from '../../errors';
import type { Database } from '../../graph';
import { prunedVersions } from '../../graph/registry';
import type { ModelVersionRecord } from '../../graph/registry';
import { isStoreFailure, loadScorer } from '../../model';
import type { ModelStore } from '../../model';

/**
 * Loads a version with the engine before `models promote` or `models rollback` makes it active:
 * a version whose files were pruned, are missing or do not load (truncated, checksum mismatch)
 * is refused with MODEL_INVALID before the registry changes, so serving never follows a
 * promotion to a model it cannot load. With a remote model store, a version this machine lacks
 * is downloaded first; a store that fails says so with its own code (nothing changed either).
 */
export async function assertLoadable(
  db: Database,
  store: ModelStore,
  version: ModelVersionRecord,
  scope: string,
  action: string,
): Promise<void> {
  const refuse = (why: string) =>
    new KgcError(
      ErrorCode.MODEL_INVALID,
      `Cannot ${action} ${version.version}: ${why}. Nothing was changed; choose another version ` +
        '(`npx kgc models list`) or retrain (`npx kgc train`).',
    );
  const prunedAt = (await prunedVersions(db, scope)).get(version.version);
  if (prunedAt) throw refuse(`its files were removed by retention (KGC_MODEL_KEEP) at ${prunedAt}`);
  try {
    loadScorer(await store.locate(version.version, version.dir));
  } catch (error) {
    if (isStoreFailure(error)) throw error;
    throw refuse(`its files do not load (${(error as Error).message})`);
  }
}
