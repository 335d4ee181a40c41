import { ErrorCode, KgcError } from '../../errors';
import { getActiveVersion } from '../../graph/registry';
import type { Database } from '../../graph';
import { ModelStore } from '../../model';
import type { Config } from '../../config';

/** The active version and its directory, or MODEL_NOT_READY saying how to get one. */
export async function activeVersionDir(
  db: Database,
  config: Config,
): Promise<{ version: string; dir: string }> {
  const active = await getActiveVersion(db, config.lifecycle.registryScope);
  if (!active) {
    throw new KgcError(
      ErrorCode.MODEL_NOT_READY,
      'No active model version: train one first (`npx kgc train`).',
    );
  }
  const store = new ModelStore(config.lifecycle.modelStore);
  return { version: active.version, dir: store.dir(active.version) };
}
