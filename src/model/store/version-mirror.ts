import { ErrorCode, KgcError } from '../../errors';
import type { VersionManifest } from './version-manifest';

/**
 * A remote copy of the model store that machines share (an object store), beside the local
 * directory every machine loads versions from. A version is visible remotely only once whole:
 * its files are uploaded first and a completion marker (the manifest of their sizes and
 * checksums) last, and removal takes the marker first; readers look for the marker only.
 */
export interface VersionMirror {
  /** Where, for messages and logs, without secrets (s3://bucket/prefix). */
  readonly location: string;
  /** Uploads every file of the complete version directory `dir`, then its completion marker. */
  upload(version: string, dir: string): Promise<VersionManifest>;
  /**
   * Downloads a complete version into the empty directory `into`, every file checked against
   * the marker's size and sha256. MODEL_INVALID when there is no marker or a file differs.
   */
  download(version: string, into: string): Promise<VersionManifest>;
  /** The versions whose marker is there (complete ones), oldest first. */
  list(): Promise<string[]>;
  /** Removes the version's marker, then its files; false when there was nothing to remove. */
  remove(version: string): Promise<boolean>;
  /** Resolves when the store answers and accepts the credentials; rejects with the mapped error. */
  check(): Promise<void>;
  /** The version's files (marker aside) and their ETags, which change when a file is replaced. */
  files(version: string): Promise<{ name: string; etag: string }[]>;
  /**
   * Uploads a file added to the version after its upload, replacing an earlier one whole, with
   * its sha256; returns its ETag.
   */
  putAdded(version: string, name: string, file: string): Promise<string>;
  /** Downloads an added file into `target` (a new file), checked against its sha256; its ETag. */
  getAdded(version: string, name: string, target: string): Promise<string>;
  /**
   * Removes what interrupted uploads left, when it is older than `before`: multipart uploads
   * never completed (their parts are stored and billed, yet listed nowhere else), and the files
   * of a version that never got its completion marker (a process killed between its files and
   * its marker). Marked versions, and what does not look like a version, are never touched.
   */
  sweepAbandoned(before: Date): Promise<SweepResult>;
}

export interface SweepResult {
  /** Incomplete multipart uploads aborted. */
  uploadsAborted: number;
  /** Versions without a marker whose files were removed. */
  unmarkedRemoved: string[];
}

/**
 * How old what an interrupted upload left must be before retention sweeps it: far longer than any
 * upload takes, so an upload in progress on another machine is never swept.
 */
export const ABANDONED_UPLOAD_AGE_MS = 24 * 3600 * 1000;

const STORE_FAILURES: ReadonlySet<string> = new Set([
  ErrorCode.MODEL_STORE_UNAVAILABLE,
  ErrorCode.MODEL_STORE_AUTH_FAILED,
  ErrorCode.MODEL_STORE_ERROR,
  ErrorCode.INVALID_CONFIG,
]);

/**
 * Whether an error is the remote store's (unreachable, refusing, misconfigured) rather than the
 * version's: worth retrying later, never a reason to give up on the version.
 */
export function isStoreFailure(error: unknown): boolean {
  return error instanceof KgcError && STORE_FAILURES.has(error.code);
}
