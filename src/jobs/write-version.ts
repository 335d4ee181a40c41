import fs from 'node:fs';
import path from 'node:path';
import { sortedKeys } from '../export';
import type { StableSplit } from '../export';
import {
  CURVE_FILE,
  renderTrainingCurve,
  SNAPSHOT_KEYS_FILE,
  TRAINED_KEYS_FILE,
  writeKeys,
  writeVersionInfo,
} from '../model';
import type { ModelStore, VersionInfo } from '../model';

/**
 * Completes the temporary directory the engine trained into and publishes it to the store
 * (uploaded to the remote store first, when there is one, then renamed into place): the
 * training checkpoints go (only the kept weights serve), the keys of the snapshot's edges and
 * of its train part, the curve, version.json and metrics.json are added.
 */
export async function writeVersion(
  store: ModelStore,
  tempDir: string,
  info: VersionInfo,
  keys: { snapshot: Float64Array; all: Float64Array; split: StableSplit },
): Promise<string> {
  fs.rmSync(path.join(tempDir, 'checkpoints'), { recursive: true, force: true });
  writeKeys(path.join(tempDir, SNAPSHOT_KEYS_FILE), keys.snapshot);
  writeKeys(path.join(tempDir, TRAINED_KEYS_FILE), sortedKeys(keys.all, keys.split.train));
  const svg = await renderTrainingCurve(info.curve, `kgc ${info.version}: training curve`);
  fs.writeFileSync(path.join(tempDir, CURVE_FILE), svg);
  writeVersionInfo(tempDir, info);
  return store.publish(tempDir, info.version);
}
