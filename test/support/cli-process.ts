import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve(__dirname, '../../bin/kgc.js');

export interface CliProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the built `kgc` in the background (npm run build first), output captured. */
export function startCli(args: string[], env: Record<string, string>): CliProcess {
  const base: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'JAVA_HOME', 'KGC_CACHE_DIR']) {
    const value = process.env[key];
    if (value !== undefined) base[key] = value;
  }
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => text, exited };
}

/** Polls `check` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The messages of a service's JSON log lines (`kgc worker`, `kgc serve`), one per line. Other
 * lines (stderr's, or one split by a stderr chunk between two reads) are left out.
 */
export function logMessages(output: string): string {
  const messages: string[] = [];
  for (const line of output.split('\n')) {
    try {
      const entry = JSON.parse(line) as { msg?: unknown };
      if (typeof entry.msg === 'string') messages.push(entry.msg);
    } catch {
      // Not a log line.
    }
  }
  return messages.join('\n');
}
