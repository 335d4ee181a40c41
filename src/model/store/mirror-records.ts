import fs from 'node:fs';
import path from 'node:path';
import type { VersionManifest } from './version-manifest';

/*
 * What a cached version directory records about its copy in the remote store, in hidden files
 * (never uploaded, never read by the engine): the marker as uploaded or downloaded, whose
 * presence says that the version went through the remote store, and the ETags of the files
 * added to the version after its upload, as last shared or fetched.
 */
const MANIFEST_RECORD = '.complete';
const ADDED_RECORD = '.added.json';

export function recordManifest(dir: string, manifest: VersionManifest): void {
  fs.writeFileSync(path.join(dir, MANIFEST_RECORD), JSON.stringify(manifest));
}

/** The recorded marker; undefined for a version that never went through the remote store. */
export function recordedManifest(dir: string): VersionManifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_RECORD), 'utf8')) as VersionManifest;
  } catch {
    return undefined;
  }
}

export function recordedAdded(dir: string): Record<string, string> {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, ADDED_RECORD), 'utf8')) as Record<
      string,
      string
    >;
  } catch {
    return {};
  }
}

export function recordAdded(dir: string, name: string, etag: string): void {
  const file = path.join(dir, ADDED_RECORD);
  const temp = `${file}.${process.pid}`;
  fs.writeFileSync(temp, JSON.stringify({ ...recordedAdded(dir), [name]: etag }));
  fs.renameSync(temp, file);
}
