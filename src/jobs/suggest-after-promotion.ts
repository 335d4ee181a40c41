import type { Database } from '../graph';
import type { ModelStore } from '../model';
import { suggestVersion } from './suggest-version';

/**
 * The suggestions step after a promotion (the retrain job's and `kgc models promote`): the new
 * active version's best `perRelation` suggestions per relation and direction, written with it.
 * A failure is logged, never fails the promotion (`npx kgc suggest` computes them again); 0
 * turns the step off. With a remote model store, the file is shared through it, so that the
 * review queues of the other machines serve it too.
 */
export async function suggestAfterPromotion(
  db: Database,
  store: ModelStore,
  promoted: { version: string; dir: string },
  perRelation: number,
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (perRelation === 0) return;
  try {
    const s = await suggestVersion(db, promoted.dir, promoted.version, { perRelation, signal });
    log(
      `suggestions: ${s.suggestions} across ${s.relations} relation(s) for ${s.version} in ${s.seconds.toFixed(1)} s`,
    );
    await store.shareAdded(promoted.version);
  } catch (error) {
    log(
      `could not compute or share suggestions for ${promoted.version}: ${(error as Error).message} (run \`npx kgc suggest\`)`,
    );
  }
}
