import { ErrorCode, isKgcError } from '../errors';
import type { ActiveVersion } from '../graph/registry';
import type { ModelStore } from '../model';

/**
 * The active version with its directory on this machine: another machine may have trained it,
 * and then its files come from the remote model store. A version the store lacks keeps its
 * registered directory (read as unusable downstream, as a missing directory always was); a store
 * that fails fails the job, which must not gate against an active version it could not read.
 */
export async function withActiveFiles(
  store: ModelStore,
  active: ActiveVersion | null,
): Promise<ActiveVersion | null> {
  if (!active) return null;
  try {
    return { ...active, dir: await store.locate(active.version, active.dir) };
  } catch (error) {
    if (isKgcError(error) && error.code === ErrorCode.MODEL_INVALID) return active;
    throw error;
  }
}
