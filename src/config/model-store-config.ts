import path from 'node:path';
import { ErrorCode, KgcError } from '../errors';
import { Env, readBoolean, readOptionalString, readUri } from './env-readers';

/**
 * An S3-compatible object store that every machine shares (KGC_MODEL_STORE=s3://bucket/prefix).
 * Holds secrets: never log it or put it in a message.
 */
export interface S3StoreConfig {
  bucket: string;
  /** Key prefix of the versions, without slashes at either end; '' is the bucket's root. */
  prefix: string;
  region: string;
  /** An S3-compatible server (AWS_ENDPOINT_URL_S3); undefined: AWS S3 itself. */
  endpoint: string | undefined;
  /** The bucket in the path, not the host name: what most S3-compatible servers need. */
  forcePathStyle: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export interface ModelStoreConfig {
  /** The versions' directory: the store itself, or this machine's cache of the remote one. */
  dir: string;
  remote: S3StoreConfig | undefined;
}

// S3's bucket naming rules (3 to 63 lowercase letters, digits, dots and hyphens).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX_SEGMENT = /^[A-Za-z0-9!_.*'()-]+$/;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

function invalid(message: string): KgcError {
  return new KgcError(ErrorCode.INVALID_CONFIG, message);
}

/** `s3://bucket/a/b` as bucket and prefix, each checked, or INVALID_CONFIG naming the variable. */
function parseS3Url(value: string): { bucket: string; prefix: string } {
  // Parsed from the text itself: URL parsing would quietly resolve `..` and decode escapes.
  const match = /^s3:\/\/([^/?#]*)(\/[^?#]*)?$/i.exec(value);
  if (!match) {
    throw invalid(
      `Invalid KGC_MODEL_STORE=${JSON.stringify(value)}: expected s3://bucket or s3://bucket/prefix.`,
    );
  }
  const bucket = match[1] ?? '';
  if (!BUCKET.test(bucket)) {
    throw invalid(
      `Invalid KGC_MODEL_STORE=${JSON.stringify(value)}: "${bucket}" is not a bucket name ` +
        '(3 to 63 lowercase letters, digits, dots and hyphens).',
    );
  }
  const segments = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  const prefix = segments === '' ? [] : segments.split('/');
  if (prefix.some((s) => !PREFIX_SEGMENT.test(s) || s === '.' || s === '..')) {
    throw invalid(
      `Invalid KGC_MODEL_STORE=${JSON.stringify(value)}: the prefix "${segments}" may hold only ` +
        "letters, digits and !_.*'()- between single slashes.",
    );
  }
  return { bucket, prefix: prefix.join('/') };
}

function readRequired(env: Env, name: string, why: string): string {
  const value = readOptionalString(env, name);
  if (value === undefined) throw invalid(`Missing ${name}: it is required ${why}.`);
  return value;
}

/**
 * The remote store's connection: the standard AWS variables (the SDK's own names), read here so
 * that a missing one is named at startup rather than on the first upload.
 */
function readS3(env: Env, url: string): S3StoreConfig {
  const why = 'when KGC_MODEL_STORE is an s3:// URL';
  const endpoint =
    readUri(env, 'AWS_ENDPOINT_URL_S3', ['http', 'https']) ??
    readUri(env, 'AWS_ENDPOINT_URL', ['http', 'https']);
  const region =
    readOptionalString(env, 'AWS_REGION') ??
    readOptionalString(env, 'AWS_DEFAULT_REGION') ??
    // S3-compatible servers ignore the region but the request signature needs one.
    (endpoint === undefined ? readRequired(env, 'AWS_REGION', `${why} on AWS`) : 'us-east-1');
  const sessionToken = readOptionalString(env, 'AWS_SESSION_TOKEN');
  return {
    ...parseS3Url(url),
    region,
    endpoint,
    forcePathStyle: readBoolean(env, 'KGC_S3_FORCE_PATH_STYLE', endpoint !== undefined),
    credentials: {
      accessKeyId: readRequired(env, 'AWS_ACCESS_KEY_ID', why),
      secretAccessKey: readRequired(env, 'AWS_SECRET_ACCESS_KEY', why),
      ...(sessionToken === undefined ? {} : { sessionToken }),
    },
  };
}

/**
 * KGC_MODEL_STORE: a directory (default <state dir>/models; a shared mount serves several
 * machines), or s3://bucket/prefix, cached per machine in KGC_MODEL_CACHE (default the same
 * <state dir>/models).
 */
export function readModelStore(env: Env, stateDir: string, cwd: string): ModelStoreConfig {
  const store = readOptionalString(env, 'KGC_MODEL_STORE');
  const cache = readOptionalString(env, 'KGC_MODEL_CACHE');
  const byDefault = path.join(stateDir, 'models');
  if (store !== undefined && ANY_SCHEME.test(store)) {
    // Refuses another scheme and credentials in the URL (it reaches logs), naming the variable.
    readUri(env, 'KGC_MODEL_STORE', ['s3'], 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
    return { dir: cache ? path.resolve(cwd, cache) : byDefault, remote: readS3(env, store) };
  }
  if (cache !== undefined) {
    throw invalid(
      'KGC_MODEL_CACHE is set but KGC_MODEL_STORE is not an s3:// URL: a directory store needs ' +
        'no cache; unset KGC_MODEL_CACHE.',
    );
  }
  return { dir: store ? path.resolve(cwd, store) : byDefault, remote: undefined };
}

/** The store's URL, s3://bucket/prefix: what messages and logs name (it holds no secret). */
export function s3Url(remote: S3StoreConfig): string {
  return `s3://${remote.bucket}${remote.prefix ? `/${remote.prefix}` : ''}`;
}

/** Where the versions are shared, for logs: the directory, or the s3:// URL and the cache. */
export function describeModelStore(dir: string, remote: S3StoreConfig | undefined): string {
  if (!remote) return dir;
  return `${s3Url(remote)}${remote.endpoint ? ` at ${remote.endpoint}` : ''}, cached in ${dir}`;
}
