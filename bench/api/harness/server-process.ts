import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../src/repo-root';
import { findFreePort } from '../../../src/graph/local/free-port';

export interface ApiProcess {
  /** http://127.0.0.1:<port> (GraphQL at /graphql). */
  base: string;
  pid: number;
  /** The server's own output (JSON log lines), for the report when something goes wrong. */
  logFile: string;
  /** Date.now() when /readyz first answered 200. */
  readyAt: number;
  stop(): Promise<void>;
}

export interface ApiProcessOptions {
  /** `kgc serve` arguments after `serve` (e.g. ['--model', dir]). */
  args: string[];
  env: Record<string, string>;
  /** Scratch folder: the server's state dir and its log. */
  work: string;
  readyTimeoutMs?: number;
  /** KGC_LOG_LEVEL of the server (default warn; info logs every request with its ms). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** The `kgc` entry point (default this repository's bin/kgc.js). */
  bin?: string;
  /** How often /readyz is asked while not ready (default 250 ms). */
  pollMs?: number;
}

/**
 * `node bin/kgc.js serve` as a child process on a free port, as an operator runs it: the load
 * tool in this process does not share the server's event loop. Resolves once /readyz says 200.
 */
export async function startApiProcess(options: ApiProcessOptions): Promise<ApiProcess> {
  const port = await findFreePort();
  const logFile = path.join(options.work, `serve-${port}.log`);
  const log = fs.openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      options.bin ?? path.join(REPO_ROOT, 'bin', 'kgc.js'),
      'serve',
      '--port',
      String(port),
      ...options.args,
    ],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        KGC_STATE_DIR: path.join(options.work, 'state'),
        KGC_LOG_LEVEL: options.logLevel ?? 'warn',
        KGC_HTTP_HOST: '127.0.0.1',
        ...options.env,
      },
      stdio: ['ignore', log, log],
    },
  );
  fs.closeSync(log);
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  for (;;) {
    if (exited !== undefined) {
      throw new Error(`kgc serve exited (${exited}) before ready:\n${tail(logFile)}`);
    }
    try {
      const response = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`kgc serve not ready in time:\n${tail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, options.pollMs ?? 250));
  }
  return {
    base,
    pid: child.pid ?? -1,
    logFile,
    readyAt: Date.now(),
    stop: async () => {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exit;
      clearTimeout(killer);
    },
  };
}

/** The last lines of a log file. */
export function tail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Error lines of the server's JSON log (level >= 50), counted by message and code. */
export function logErrors(file: string): { counts: Record<string, number>; first: string | null } {
  const counts: Record<string, number> = {};
  let first: string | null = null;
  if (!fs.existsSync(file)) return { counts, first };
  const text = fs.readFileSync(file, 'utf8');
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: {
      level?: number;
      msg?: string;
      time?: string;
      err?: { code?: string; message?: string };
    };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if ((entry.level ?? 0) < 50) continue;
    const key = `${entry.msg ?? '?'} [${entry.err?.code ?? 'no code'}]`;
    counts[key] = (counts[key] ?? 0) + 1;
    first ??= `${entry.time ?? ''} ${entry.msg ?? ''}: ${entry.err?.message ?? ''}`;
  }
  return { counts, first };
}
