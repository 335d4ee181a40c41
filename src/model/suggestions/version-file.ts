import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';

/** A suggestions file of the version in `dir`, or undefined when the version has none. */
export function readIfPresent(dir: string, name: string): Buffer | undefined {
  try {
    return fs.readFileSync(path.join(dir, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The error for a suggestions file that cannot be used, saying how to write it again. */
export function unusableFile(dir: string, name: string, why: string): KgcError {
  return new KgcError(
    ErrorCode.MODEL_INVALID,
    `${name} in ${path.basename(dir)} is unusable (${why}): run \`npx kgc suggest\` to write it again.`,
  );
}
