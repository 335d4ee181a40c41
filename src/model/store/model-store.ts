import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../../process-alive';
import { ErrorCode, KgcError } from '../../errors';
import { Scorer } from '../scorer';
import { refreshAddedFiles, shareAddedFiles } from './added-files';
import { durableRename, fsyncPath } from './durable-files';
import { fetchVersion } from './fetch-version';
import { recordedManifest, recordManifest } from './mirror-records';
import { VERSION_ID } from './version-id';
import type { VersionMirror } from './version-mirror';
import {
  readKeys,
  readVersionInfo,
  readVocabulary,
  SNAPSHOT_KEYS_FILE,
  TRAINED_KEYS_FILE,
  VersionInfo,
} from './version-info';

const TEMP_PREFIX = '.tmp-';

/** A version as read back from the store, checked for completeness. */
export interface StoredVersion {
  version: string;
  dir: string;
  info: VersionInfo;
}

/**
 * Model versions on disk, one directory each, named by version id. A version is written under
 * `.tmp-<version>-<pid>` and renamed into place when complete, so a reader sees a whole version
 * or none; a job killed mid-write leaves only a temporary directory, which `cleanStale` removes.
 * Every file and the directory are fsynced before the rename and the store after it, so a power
 * loss too leaves the whole version or nothing (a rename alone may reach the disk before the data).
 *
 * With a `remote` (an object store that machines share), this directory is the machine's cache
 * of it: a version is uploaded whole before it is renamed into place here (so every version in
 * the cache exists remotely, unless retention removed it since), a reader downloads one it lacks
 * (`locate`), and retention removes it remotely too. The synchronous methods are local only.
 */
export class ModelStore {
  private readonly fetching = new Map<string, Promise<void>>();

  constructor(
    readonly root: string,
    readonly remote?: VersionMirror,
  ) {}

  /** Sortable by creation time (UTC, to the second), unique by its random tail. */
  newVersionId(now = new Date()): string {
    const stamp = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    return `v${stamp}-${crypto.randomBytes(3).toString('hex')}`;
  }

  dir(version: string): string {
    if (!VERSION_ID.test(version)) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `"${version}" is not a model version id (like v20260101T120000Z-a1b2c3).`,
      );
    }
    return path.join(this.root, version);
  }

  /** A fresh temporary directory for `version`, owned by this process. */
  createTemp(version: string): string {
    fs.mkdirSync(this.root, { recursive: true });
    const dir = path.join(this.root, `${TEMP_PREFIX}${version}-${process.pid}`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir);
    return dir;
  }

  /** Moves a complete temporary directory into place, atomically (same filesystem) and durably. */
  commit(tempDir: string, version: string): string {
    const target = this.dir(version);
    if (fs.existsSync(target)) {
      throw new KgcError(
        ErrorCode.INTERNAL,
        `Model version ${version} already exists in the store.`,
      );
    }
    durableRename(tempDir, target);
    return target;
  }

  /** Removes a version directory (one that never got registered). */
  discard(version: string): void {
    fs.rmSync(this.dir(version), { recursive: true, force: true });
  }

  /**
   * Removes a version's files for retention. The directory is first renamed out of the versions'
   * namespace (a temporary name of this process), so a crash mid-removal never leaves a partial
   * directory under a version's name; `cleanStale` finishes what a crash interrupted.
   */
  remove(version: string): boolean {
    const dir = this.dir(version);
    if (!fs.existsSync(dir)) return false;
    const doomed = path.join(this.root, `${TEMP_PREFIX}pruned-${version}-${process.pid}`);
    fs.rmSync(doomed, { recursive: true, force: true });
    fs.renameSync(dir, doomed);
    fsyncPath(this.root);
    fs.rmSync(doomed, { recursive: true, force: true });
    return true;
  }

  /** Temporary directories whose writer process is gone; returns the removed names. */
  cleanStale(): string[] {
    if (!fs.existsSync(this.root)) return [];
    const removed: string[] = [];
    for (const name of fs.readdirSync(this.root)) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const pid = Number(/-(\d+)$/.exec(name)?.[1]);
      if (Number.isInteger(pid) && pid > 0 && isProcessAlive(pid)) continue;
      fs.rmSync(path.join(this.root, name), { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  }

  /** Version ids present in the store (complete directories only), oldest first. */
  list(): string[] {
    if (!fs.existsSync(this.root)) return [];
    return fs
      .readdirSync(this.root)
      .filter((name) => VERSION_ID.test(name))
      .sort();
  }

  /** Commits a complete temporary directory: uploaded to the remote store first, if any. */
  async publish(tempDir: string, version: string): Promise<string> {
    if (this.remote) recordManifest(tempDir, await this.remote.upload(version, tempDir));
    return this.commit(tempDir, version);
  }

  /**
   * A version's directory on this machine. Without a remote store: `registered` (the registry's
   * record) when it exists here, else the store's. With one: this cache's copy, downloaded
   * first when missing; each process reads its own cache, never another's that its owner may
   * evict. `registered` serves then only for a version the remote store never had (written
   * before the store became remote).
   */
  async locate(version: string, registered?: string): Promise<string> {
    const dir = this.dir(version);
    const here = registered !== undefined && fs.existsSync(registered);
    if (!this.remote) return here ? registered : dir;
    if (fs.existsSync(dir)) return dir;
    try {
      await this.fetch(this.remote, version);
    } catch (error) {
      if (here && error instanceof KgcError && error.code === ErrorCode.MODEL_INVALID) {
        return registered;
      }
      throw error;
    }
    return dir;
  }

  /** The versions the store holds, oldest first: the remote store's (complete ones), if any. */
  async versions(): Promise<string[]> {
    return this.remote ? this.remote.list() : this.list();
  }

  /** Removes a version for retention: from the remote store first, then from this directory. */
  async prune(version: string): Promise<boolean> {
    const remote = (await this.remote?.remove(version)) ?? false;
    return this.remove(version) || remote;
  }

  /**
   * Drops cached versions that the remote store no longer holds (retention removed them), except
   * `keep`; returns their ids. Only versions that went through the remote store are candidates
   * (never one written here before the store was remote). The cache is read before the remote
   * listing: a version is uploaded before it is cached, so one cached meanwhile stays.
   */
  async evictRemoved(keep: readonly string[]): Promise<string[]> {
    if (!this.remote) return [];
    const cached = this.list().filter((v) => recordedManifest(this.dir(v)) !== undefined);
    const held = new Set([...(await this.remote.list()), ...keep]);
    return cached.filter((version) => !held.has(version) && this.remove(version));
  }

  /**
   * Shares the files added to a committed version after its upload (suggestions computed after
   * a promotion) through the remote store; returns their names (none without one).
   */
  async shareAdded(version: string): Promise<string[]> {
    return this.remote ? shareAddedFiles(this.remote, version, this.dir(version)) : [];
  }

  /** Fetches files that another machine added to a cached version since; returns their names. */
  async refreshAdded(version: string): Promise<string[]> {
    const dir = this.dir(version);
    return this.remote && fs.existsSync(dir) ? refreshAddedFiles(this.remote, version, dir) : [];
  }

  /** The version's record; MODEL_INVALID when it is missing or incomplete. */
  open(version: string): StoredVersion {
    return openVersionDir(this.dir(version), version);
  }

  /** Loads the version for scoring; MODEL_INVALID when missing, incomplete or corrupt. */
  loadScorer(version: string): Scorer {
    return loadScorer(this.open(version).dir);
  }

  /** One download of a version at a time in this process; callers share it. */
  private fetch(remote: VersionMirror, version: string): Promise<void> {
    let pending = this.fetching.get(version);
    if (!pending) {
      pending = fetchVersion(this, remote, version).finally(() => this.fetching.delete(version));
      this.fetching.set(version, pending);
    }
    return pending;
  }
}

/** Opens a version directory wherever it is (the registry records each version's `dir`). */
export function openVersionDir(dir: string, expected?: string): StoredVersion {
  const info = readVersionInfo(dir);
  if (expected !== undefined && info.version !== expected) {
    throw new KgcError(
      ErrorCode.MODEL_INVALID,
      `The model directory ${dir} holds version ${info.version}, not ${expected}.`,
    );
  }
  return { version: info.version, dir, info };
}

/**
 * Loads a version directory for scoring. Every failure (missing files, a checksum that does not
 * match, a truncated tensor file) is MODEL_INVALID, so a caller can keep what it serves.
 */
export function loadScorer(dir: string): Scorer {
  openVersionDir(dir);
  try {
    return Scorer.load(dir);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new KgcError(
      ErrorCode.MODEL_INVALID,
      `The model in ${dir} cannot be loaded: ${message}`,
      {
        cause: error,
      },
    );
  }
}

/** `loadScorer` off the JS thread (hot reload in a serving process). */
export async function loadScorerAsync(dir: string): Promise<Scorer> {
  openVersionDir(dir);
  try {
    return await Scorer.loadAsync(dir);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new KgcError(
      ErrorCode.MODEL_INVALID,
      `The model in ${dir} cannot be loaded: ${message}`,
      {
        cause: error,
      },
    );
  }
}

/** What the promotion gate needs of an older version: its vocabularies and trained edges. */
export interface VersionEdges {
  entities: string[];
  relations: string[];
  /** Sorted keys of the edges the version trained on. */
  trained: Float64Array;
  /** Sorted keys of every edge of its snapshot. */
  snapshot: Float64Array;
}

export function readVersionEdges(dir: string): VersionEdges {
  openVersionDir(dir);
  return {
    ...readVocabulary(dir),
    trained: readKeys(path.join(dir, TRAINED_KEYS_FILE)),
    snapshot: readKeys(path.join(dir, SNAPSHOT_KEYS_FILE)),
  };
}
