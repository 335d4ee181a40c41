import ms from 'ms';
import { ErrorCode, KgcError } from '../errors';

/** The environment as read by config: a plain map so tests can pass their own. */
export type Env = Readonly<Record<string, string | undefined>>;

function invalid(name: string, value: string, expected: string): KgcError {
  return new KgcError(
    ErrorCode.INVALID_CONFIG,
    `Invalid ${name}=${JSON.stringify(value)}: expected ${expected}.`,
  );
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function readString(env: Env, name: string, fallback: string): string {
  return raw(env, name) ?? fallback;
}

export function readOptionalString(env: Env, name: string): string | undefined {
  return raw(env, name);
}

/** A number written as `pattern` within `range`, else INVALID_CONFIG naming what was expected. */
function readInRange(
  env: Env,
  name: string,
  fallback: number,
  range: { min: number; max: number },
  pattern: RegExp,
  kind: string,
): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!pattern.test(value) || parsed < range.min || parsed > range.max) {
    throw invalid(name, value, `${kind} from ${range.min} to ${range.max}`);
  }
  return parsed;
}

export function readInt(
  env: Env,
  name: string,
  fallback: number,
  range: { min: number; max: number },
): number {
  return readInRange(env, name, fallback, range, /^-?\d+$/, 'an integer');
}

export function readNumber(
  env: Env,
  name: string,
  fallback: number,
  range: { min: number; max: number },
): number {
  return readInRange(env, name, fallback, range, /^-?(\d+\.?\d*|\.\d+)$/, 'a number');
}

export function readEnum<T extends string>(
  env: Env,
  name: string,
  fallback: T,
  allowed: readonly T[],
): T {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalid(name, value, `one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** Memory sizes as Neo4j writes them: 512m, 1g, 2048k. */
export function readMemorySize(env: Env, name: string, fallback: string): string {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+[kmg]$/i.test(value)) throw invalid(name, value, 'a size such as 512m or 2g');
  return value.toLowerCase();
}

/** `value` with any `user:password@` part masked: config errors reach logs. */
function withoutUserInfo(value: string): string {
  return value.replace(/^([^:/?#]*:\/\/)[^/?#]*@/, '$1***@');
}

/**
 * A URI with one of `schemes`. Credentials in it (`user:password@host`) are refused: the URI is
 * logged and shown in errors, so the password would leak; they have variables of their own.
 */
export function readUri(
  env: Env,
  name: string,
  schemes: readonly string[],
  credentials = 'separate variables',
): string | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  const expected = `a URI with scheme ${schemes.join(', ')}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(name, withoutUserInfo(value), expected);
  }
  if (url.username !== '' || url.password !== '' || /^[^:/?#]*:\/\/[^/?#]*@/.test(value)) {
    throw new KgcError(
      ErrorCode.INVALID_CONFIG,
      `Invalid ${name}: it carries credentials (user:password@host), which would reach logs; ` +
        `remove them from the URI and set ${credentials} instead.`,
    );
  }
  if (!schemes.includes(url.protocol.replace(/:$/, ''))) {
    throw invalid(name, value, expected);
  }
  return value;
}

export function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw invalid(name, value, 'true or false');
}

/** A comma-separated list; empty entries dropped. */
export function readList(env: Env, name: string): string[] {
  const value = raw(env, name);
  if (value === undefined) return [];
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/**
 * A positive duration such as `45m`, `1.5h` or `90s` (a bare number is seconds), in seconds;
 * `undefined` when unset.
 */
export function readDuration(env: Env, name: string): number | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  const seconds = parseDurationSeconds(value);
  if (seconds === undefined) throw invalid(name, value, 'a duration such as 45m, 1.5h or 90s');
  return seconds;
}

/** Seconds in `45m`, `1.5h`, `90s` or `90` (seconds); `undefined` unless positive and finite. */
export function parseDurationSeconds(text: string): number | undefined {
  const trimmed = text.trim();
  const milliseconds = /^\d+(\.\d+)?$/.test(trimmed)
    ? Number(trimmed) * 1000
    : ms(trimmed as ms.StringValue);
  return typeof milliseconds === 'number' && Number.isFinite(milliseconds) && milliseconds > 0
    ? milliseconds / 1000
    : undefined;
}
