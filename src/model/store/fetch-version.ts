import fs from 'node:fs';
import { refreshAddedFiles } from './added-files';
import { durableRename } from './durable-files';
import { recordManifest } from './mirror-records';
import type { VersionMirror } from './version-mirror';

/** What a fetch needs of the local store: its temporary and final directories. */
export interface FetchTarget {
  dir(version: string): string;
  createTemp(version: string): string;
  cleanStale(): string[];
}

/**
 * Downloads a version from the remote store into a temporary directory of the local one (every
 * file checked against the marker; the marker recorded), then renames it into place, so the
 * cache holds a whole version or none, as after a local write.
 */
export async function fetchVersion(
  store: FetchTarget,
  remote: VersionMirror,
  version: string,
): Promise<void> {
  store.cleanStale();
  const temp = store.createTemp(version);
  try {
    recordManifest(temp, await remote.download(version, temp));
    await refreshAddedFiles(remote, version, temp);
    durableRename(temp, store.dir(version));
  } catch (error) {
    fs.rmSync(temp, { recursive: true, force: true });
    // Another process sharing the cache may have put the same version in place first.
    if (!fs.existsSync(store.dir(version))) throw error;
  }
}
