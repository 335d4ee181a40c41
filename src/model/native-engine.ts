import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode, KgcError } from '../errors';
import { REPO_ROOT } from '../repo-root';
import type * as Native from '../../engine/node/index';

export type NativeEngine = typeof Native;
export type { Native };

let cached: NativeEngine | undefined;

/** The napi-rs binding, loaded once. Only src/model imports it (design.md, import rules). */
export function nativeEngine(): NativeEngine {
  if (cached) return cached;
  const dir = path.join(REPO_ROOT, 'engine', 'node');
  const built = fs.existsSync(dir) && fs.readdirSync(dir).some((name) => name.endsWith('.node'));
  if (!built) {
    throw new KgcError(
      ErrorCode.ENGINE_NOT_BUILT,
      'The native engine is not built: run `npm run setup` (or `npm run build:engine`).',
    );
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  cached = require(dir) as NativeEngine;
  return cached;
}

const ENGINE_CODES: Record<string, ErrorCode> = {
  ENGINE_IO: ErrorCode.BAD_USER_INPUT,
  ENGINE_DATASET: ErrorCode.BAD_USER_INPUT,
  ENGINE_CONFIG: ErrorCode.BAD_USER_INPUT,
  ENGINE_ARGUMENT: ErrorCode.BAD_USER_INPUT,
  ENGINE_CHECKPOINT: ErrorCode.MODEL_INVALID,
  ENGINE_ABORTED: ErrorCode.TRAINING_ABORTED,
};

/** The binding prefixes messages with `[ENGINE_*]`; map them to the product's codes. */
export function mapEngineError(error: unknown): KgcError {
  if (error instanceof KgcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const match = /^(?:Error: )?\[(ENGINE_[A-Z_]+)\] (.*)$/s.exec(message);
  if (!match) return new KgcError(ErrorCode.ENGINE_ERROR, message, { cause: error });
  const code = ENGINE_CODES[match[1] as string] ?? ErrorCode.ENGINE_ERROR;
  return new KgcError(code, match[2] as string, { cause: error });
}
