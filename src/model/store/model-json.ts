import fs from 'node:fs';

/**
 * Reads a JSON file of a model version (calibration, types, rules) that the server trusts only
 * after checking: a file over `maxBytes` is refused before it is read (a version's files are
 * a few MB; a huge one is damage or an attack, not a model), as is one that is not JSON. The
 * caller validates the shape. `invalid(why)` makes the caller's MODEL_INVALID error.
 */
export function readModelJson(
  file: string,
  maxBytes: number,
  invalid: (why: string) => Error,
): unknown {
  const size = fs.statSync(file).size;
  if (size > maxBytes) {
    throw invalid(`it is ${size} bytes, over the ${maxBytes} a version's file may have`);
  }
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw invalid(`not valid JSON (${(error as Error).message})`);
  }
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
