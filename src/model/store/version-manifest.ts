import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ErrorCode, KgcError } from '../../errors';

/** One file of a version: its path inside the version ('/'-separated), size and sha256 (hex). */
export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

/** What a remote completion marker holds: every file of the version, as uploaded. */
export interface VersionManifest {
  format: 1;
  version: string;
  files: ManifestFile[];
}

// Plain relative names only: a manifest read from a remote store must not write outside the
// directory it is downloaded into (no absolute paths, no `..`, no hidden names).
const SAFE_PATH = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
const SHA256 = /^[0-9a-f]{64}$/;

function filesUnder(dir: string, relative = ''): string[] {
  return fs
    .readdirSync(path.join(dir, relative), { withFileTypes: true })
    .flatMap((entry) => {
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) return filesUnder(dir, name);
      return entry.isFile() ? [name] : [];
    })
    .sort();
}

/** Streams `source` to `target` (a new file), returning its size and sha256 as written. */
export async function writeHashed(
  source: Readable,
  target: string,
): Promise<{ size: number; sha256: string }> {
  const hash = crypto.createHash('sha256');
  let size = 0;
  await pipeline(
    source,
    async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        size += chunk.length;
        yield chunk;
      }
    },
    fs.createWriteStream(target, { flags: 'wx' }),
  );
  return { size, sha256: hash.digest('hex') };
}

/** A file's size and sha256, read as a stream. */
export async function hashFile(file: string): Promise<{ size: number; sha256: string }> {
  const hash = crypto.createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/** The manifest of a complete version directory (files read one at a time, streamed). */
export async function describeVersion(dir: string, version: string): Promise<VersionManifest> {
  const files: ManifestFile[] = [];
  for (const name of filesUnder(dir)) {
    if (!SAFE_PATH.test(name)) {
      throw new KgcError(
        ErrorCode.INTERNAL,
        `Cannot upload ${version}: its file "${name}" has a name the model store does not accept.`,
      );
    }
    files.push({ path: name, ...(await hashFile(path.join(dir, name))) });
  }
  return { format: 1, version, files };
}

/** A marker's text as a manifest of `version`, checked field by field; MODEL_INVALID otherwise. */
export function parseManifest(text: string, version: string, where: string): VersionManifest {
  const bad = (why: string) =>
    new KgcError(
      ErrorCode.MODEL_INVALID,
      `The completion marker of ${version} in ${where} is unusable (${why}); upload the version ` +
        'again or choose another one (`npx kgc models list`).',
    );
  let parsed: Partial<VersionManifest>;
  try {
    parsed = JSON.parse(text) as Partial<VersionManifest>;
  } catch {
    throw bad('not JSON');
  }
  if (parsed.format !== 1 || parsed.version !== version || !Array.isArray(parsed.files)) {
    throw bad('not a format 1 manifest of this version');
  }
  for (const file of parsed.files) {
    const ok =
      typeof file === 'object' &&
      SAFE_PATH.test(String(file.path)) &&
      Number.isSafeInteger(file.size) &&
      file.size >= 0 &&
      SHA256.test(String(file.sha256));
    if (!ok) throw bad(`a file entry is malformed: ${JSON.stringify(file).slice(0, 200)}`);
  }
  return parsed as VersionManifest;
}
