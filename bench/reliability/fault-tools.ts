import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database, LocalNeo4j } from '../../src/graph';
import { REPO_ROOT } from '../../src/repo-root';

/** What the fault benches share: the built CLI as a child, waiting, killing Neo4j, the table. */

const BIN = path.join(REPO_ROOT, 'bin', 'kgc.js');

export interface FaultRow {
  fault: string;
  leftBehind: string;
  after: string;
  ok: boolean;
}

export interface Cli {
  output: () => string;
  exited: Promise<number | null>;
  kill: () => void;
  pid: number | undefined;
}

/** The built `kgc` (npm run build first) with only `env` (and PATH, HOME) in its environment. */
export function startCli(args: string[], env: Record<string, string>): Cli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr.on('data', (c: Buffer) => (text += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { output: () => text, exited, kill: () => child.kill('SIGKILL'), pid: child.pid };
}

export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 20,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return true;
}

export function isAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills the bootloader and the server JVM (run/neo4j.pid) of a local Neo4j, as a power cut. */
export async function killNeo4j(server: LocalNeo4j, dir: string): Promise<void> {
  const pidFile = path.join(dir, 'run', 'neo4j.pid');
  const pids = [
    (await server.status()).pid,
    fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').trim()) : undefined,
  ].filter((pid): pid is number => pid !== undefined && isAlive(pid));
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  await until(() => pids.every((pid) => !isAlive(pid)), 30_000);
}

export async function edgeCount(db: Database, type?: string): Promise<number> {
  const pattern = type ? `[r:${type}]` : '[r]';
  const result = await db.read((tx) =>
    tx.run(`MATCH (:Entity)-${pattern}->(:Entity) RETURN count(r) AS n`),
  );
  return Number(result.records[0]?.get('n'));
}

/** Prints the table and sets the exit code: 1 when a row did not come back by itself. */
export function printFaultRows(rows: FaultRow[]): void {
  console.log(
    `\nFaults injected (${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, ${new Date().toISOString()})\n`,
  );
  console.log('| fault | left behind | after the next run | back by itself |\n|---|---|---|---|');
  for (const r of rows)
    console.log(`| ${r.fault} | ${r.leftBehind} | ${r.after} | ${r.ok ? 'yes' : 'NO'} |`);
  process.exitCode = rows.every((r) => r.ok) ? 0 : 1;
}
