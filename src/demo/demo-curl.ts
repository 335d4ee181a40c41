import fs from 'node:fs';
import path from 'node:path';

/** Where the demo leaves its reader key for the printed curl (owner-only, rewritten each run). */
export function demoKeyFile(stateDir: string): string {
  return path.join(stateDir, 'demo-reader.key');
}

/**
 * Writes the demo's reader key to its file, readable by the owner only: the printed command
 * reads it from there, so the key itself never reaches the terminal or a log.
 */
export function writeDemoKey(stateDir: string, key: string): string {
  const file = demoKeyFile(stateDir);
  fs.mkdirSync(stateDir, { recursive: true });
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, key, { mode: 0o600 });
  return file;
}

/** Single-quotes a word for a POSIX shell. */
const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** The curl a user can paste: the query as JSON, the key read from the demo's key file. */
export function demoCurlCommand(url: string, keyFile: string, body: unknown): string {
  return [
    'curl -s',
    quote(url),
    `-H "authorization: Bearer $(cat ${quote(keyFile)})"`,
    `-H 'content-type: application/json'`,
    `-d ${quote(JSON.stringify(body))}`,
  ].join(' ');
}
