import fs from 'node:fs';
import path from 'node:path';
import { recordAdded, recordedAdded, recordedManifest } from './mirror-records';
import type { VersionMirror } from './version-mirror';
import { SUGGESTIONS_BIN } from '../suggestions/suggestions-bin';

/**
 * The files kgc adds to a version after its upload (`kgc suggest` after a promotion): no other
 * name is shared or fetched, so an object put under a version's prefix later (a calibration.json
 * its upload never had, say) is never served.
 */
const ADDED_FILES: ReadonlySet<string> = new Set([SUGGESTIONS_BIN]);

/*
 * Files added to a version after its upload: the suggestions a promotion computes, which other
 * machines' review queues serve. The marker lists the files of the upload only and never
 * changes; an added file is one object, replaced whole (S3 writes are atomic per object), which
 * carries its own sha256, and a cache knows which content it has by the object's ETag.
 */

/** The files the marker lists, as recorded; undefined for a version that is not mirrored. */
function listedFiles(dir: string): Set<string> | undefined {
  const manifest = recordedManifest(dir);
  return manifest && new Set(manifest.files.map((file) => file.path));
}

/** Uploads the files of a cached version that its marker does not list; returns their names. */
export async function shareAddedFiles(
  remote: VersionMirror,
  version: string,
  dir: string,
): Promise<string[]> {
  const listed = listedFiles(dir);
  if (!listed) return [];
  const added = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && ADDED_FILES.has(e.name) && !listed.has(e.name))
    .map((e) => e.name);
  for (const name of added) {
    recordAdded(dir, name, await remote.putAdded(version, name, path.join(dir, name)));
  }
  return added;
}

/**
 * Brings a cached version's added files up to date with the remote store: each new or replaced
 * one is downloaded beside the others, checked, and renamed over the old copy (a reader sees
 * the old file or the new one, whole). Returns the names that changed.
 */
export async function refreshAddedFiles(
  remote: VersionMirror,
  version: string,
  dir: string,
): Promise<string[]> {
  const listed = listedFiles(dir);
  if (!listed) return [];
  const known = recordedAdded(dir);
  const changed: string[] = [];
  for (const { name, etag } of await remote.files(version)) {
    if (listed.has(name) || !ADDED_FILES.has(name) || known[name] === etag) continue;
    const temp = path.join(dir, `.added-${process.pid}-${name}`);
    fs.rmSync(temp, { force: true });
    try {
      const fetched = await remote.getAdded(version, name, temp);
      fs.renameSync(temp, path.join(dir, name));
      recordAdded(dir, name, fetched);
      changed.push(name);
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }
  return changed;
}
