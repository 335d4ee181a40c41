import { ErrorCode } from './error-codes';

/**
 * The product's one error type. `message` says what went wrong and what to do about it;
 * `code` is stable and is what clients and tests match on.
 */
export class KgcError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KgcError';
    this.code = code;
  }
}

export function isKgcError(error: unknown): error is KgcError {
  return error instanceof KgcError;
}

/** Wraps anything thrown into a KgcError, keeping KgcErrors as they are. */
export function toKgcError(error: unknown): KgcError {
  if (error instanceof KgcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new KgcError(ErrorCode.INTERNAL, message, { cause: error });
}
