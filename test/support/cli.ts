import { spawnSync } from 'node:child_process';
import path from 'node:path';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

const BIN = path.resolve(__dirname, '../../bin/kgc.js');

/** Runs the built `kgc` (npm run build first) as a user would, with a controlled environment. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): CliResult {
  const base: Record<string, string> = {};
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
