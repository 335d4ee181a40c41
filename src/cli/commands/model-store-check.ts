import { ErrorCode, isKgcError } from '../../errors';
import type { ModelStore } from '../../model';

/**
 * Checks a remote model store at the start of a long-running command. Credentials it refuses
 * and a bucket that does not exist are configuration to fix: the command stops, naming them. A
 * store that is only unreachable is reported and the command goes on (a replica serves what it
 * has cached; the worker's jobs fail until the store is back).
 */
export async function checkModelStore(
  store: ModelStore,
  onUnavailable: (error: Error) => void,
): Promise<void> {
  try {
    await store.remote?.check();
  } catch (error) {
    if (!isKgcError(error) || error.code !== ErrorCode.MODEL_STORE_UNAVAILABLE) throw error;
    onUnavailable(error);
  }
}
