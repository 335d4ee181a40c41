import { ErrorCode, KgcError } from '../../errors';
import { getActiveVersion } from '../../graph/registry';
import type { Database } from '../../graph';
import { openModelStore } from '../../model';
import type { ModelStore } from '../../model';
import type { Config } from '../../config';

/**
 * The active version, its directory on this machine (downloaded from a remote model store when
 * missing, with the files other machines added since) and the store, or MODEL_NOT_READY saying
 * how to get one.
 */
export async function activeVersionDir(
  db: Database,
  config: Config,
): Promise<{ version: string; dir: string; store: ModelStore }> {
  const active = await getActiveVersion(db, config.lifecycle.registryScope);
  if (!active) {
    throw new KgcError(
      ErrorCode.MODEL_NOT_READY,
      'No active model version: train one first (`npx kgc train`).',
    );
  }
  const store = openModelStore(config.lifecycle);
  const dir = await store.locate(active.version);
  await store.refreshAdded(active.version);
  return { version: active.version, dir, store };
}
