import { ErrorCode, KgcError } from '../../../errors';

const AUTH_FAILURES = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'InvalidToken',
  'ExpiredToken',
  'TokenRefreshRequired',
  'Forbidden',
]);

const SERVER_BUSY = new Set([
  'TimeoutError',
  'RequestTimeout',
  'ServiceUnavailable',
  'SlowDown',
  'InternalError',
]);

// A socket error's code, also where only its text survives (the SDK wraps errors from another
// realm, as under Jest, into a plain Error that keeps nothing but the message).
const SOCKET_CODE = /\b(ECONN\w+|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH)\b/;

interface SdkLikeError {
  name?: string;
  code?: string;
  message?: string;
  /** Set on a file system error: the cache's, not the store's. */
  path?: string;
  /** Set on every answer of the service (S3ServiceException); absent: no answer came. */
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Maps an S3 SDK error to the product's codes; KgcErrors pass through. The message names the
 * store, what was being done, the S3 error name and HTTP status, and the variables to check:
 * never the SDK's own text or the request (signatures, keys), so no secret can reach a log.
 */
export function mapS3Error(error: unknown, location: string, doing: string): KgcError {
  if (error instanceof KgcError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as SdkLikeError;
  const socket = e.code ?? SOCKET_CODE.exec(String(e.message))?.[1];
  const name = e.name && e.name !== 'Error' ? e.name : (socket ?? 'no answer');
  const status = e.$metadata?.httpStatusCode;
  const answered = e.$fault !== undefined || status !== undefined;
  const what = `${name}${status ? `, HTTP ${status}` : ''}`;
  if (typeof e.path === 'string') {
    return new KgcError(
      ErrorCode.INTERNAL,
      `Writing ${e.path} failed while ${doing} (${socket ?? name}): check the disk of KGC_MODEL_CACHE.`,
      { cause: error },
    );
  }
  if (name === 'NoSuchBucket') {
    return new KgcError(
      ErrorCode.INVALID_CONFIG,
      `The bucket of KGC_MODEL_STORE (${location}) does not exist (while ${doing}): create it, or ` +
        'fix KGC_MODEL_STORE or AWS_ENDPOINT_URL_S3.',
      { cause: error },
    );
  }
  if (AUTH_FAILURES.has(name) || status === 401 || status === 403) {
    return new KgcError(
      ErrorCode.MODEL_STORE_AUTH_FAILED,
      `The model store ${location} refused the credentials while ${doing} (${what}): check ` +
        'AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) and the bucket policy.',
      { cause: error },
    );
  }
  if (!answered || SERVER_BUSY.has(name) || (status ?? 0) >= 500) {
    return new KgcError(
      ErrorCode.MODEL_STORE_UNAVAILABLE,
      `The model store ${location} is unavailable while ${doing} (${what}): check that it runs ` +
        'and AWS_ENDPOINT_URL_S3; try again shortly.',
      { cause: error },
    );
  }
  return new KgcError(
    ErrorCode.MODEL_STORE_ERROR,
    `The model store ${location} failed while ${doing} (${what}).`,
    { cause: error },
  );
}
