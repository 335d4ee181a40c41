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

/** The product's code for each code the engine's errors carry. */
const ENGINE_CODES: Record<Native.EngineErrorCode, ErrorCode> = {
  ENGINE_IO: ErrorCode.BAD_USER_INPUT,
  ENGINE_DATASET: ErrorCode.BAD_USER_INPUT,
  ENGINE_CONFIG: ErrorCode.BAD_USER_INPUT,
  ENGINE_ARGUMENT: ErrorCode.BAD_USER_INPUT,
  ENGINE_CHECKPOINT: ErrorCode.MODEL_INVALID,
  ENGINE_ABORTED: ErrorCode.TRAINING_ABORTED,
  ENGINE_DEVICE: ErrorCode.DEVICE_UNAVAILABLE,
  ENGINE_INTERNAL: ErrorCode.ENGINE_ERROR,
};

/** An engine error (its `code` is an `EngineErrorCode`) as the product's error. */
export function mapEngineError(error: unknown): KgcError {
  if (error instanceof KgcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const engineCode = (error as { code?: unknown } | null)?.code;
  const code =
    typeof engineCode === 'string' && engineCode in ENGINE_CODES
      ? ENGINE_CODES[engineCode as Native.EngineErrorCode]
      : ErrorCode.ENGINE_ERROR;
  return new KgcError(code, message, { cause: error });
}

/** The error a run aborted before it started rejects with (the engine's, for one code path). */
export function abortedBeforeStart(): KgcError {
  return new KgcError(ErrorCode.TRAINING_ABORTED, 'training was aborted before it started');
}
