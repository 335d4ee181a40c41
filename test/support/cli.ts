import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

const BIN = path.resolve(__dirname, '../../bin/kgc.js');

let stateDir: string | undefined;

/** One state folder per test process, removed at its exit: no run writes into the checkout. */
function defaultStateDir(): string {
  if (stateDir === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-cli-state-'));
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    stateDir = dir;
  }
  return stateDir;
}

/**
 * Runs the built `kgc` (npm run build first) as a user would, with a controlled environment
 * (its state folder a temporary one unless `env` names one).
 */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): CliResult {
  const base: Record<string, string> = { KGC_STATE_DIR: defaultStateDir() };
  for (const key of ['PATH', 'HOME', 'JAVA_HOME', 'KGC_CACHE_DIR']) {
    const value = process.env[key];
    if (value !== undefined) base[key] = value;
  }
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...base, ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
