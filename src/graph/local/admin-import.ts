import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { ErrorCode, KgcError } from '../../errors';
import type { AdminCommand } from './initial-password';

/** neo4j-admin's input: one node file (all `:Entity`) and one relationship file. */
export interface AdminImportFiles {
  nodes: string;
  relationships: string;
}

export interface AdminImportOptions {
  /** Where neo4j-admin writes its report of bad entries (default: its working directory). */
  reportFile?: string;
  /** More neo4j-admin options (`--threads=4`, `--max-off-heap-memory=4g`). */
  extraArgs?: readonly string[];
  /**
   * Called as neo4j-admin reports progress: its stage (`Node import`, `Relationship import`,
   * `Relationship linking`, `Post processing`) and the fraction of the whole import done.
   */
  onProgress?: (stage: string, fraction: number) => void;
  /** Stops the import (the whole process group): the import then fails. */
  signal?: AbortSignal;
  /** Called with neo4j-admin's pid once it runs (its process group outlives a killed caller). */
  onStart?: (pid: number) => void;
}

/**
 * Refuses a folder neo4j-admin cannot import from: its file lists are comma-separated
 * (`--nodes=Entity=a.csv,b.csv`) with no way to escape a comma in a path.
 */
export function assertImportableFolder(folder: string, what: string): void {
  if (folder.includes(',')) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      `${what} ${JSON.stringify(folder)} holds a comma, which neo4j-admin's import reads as a ` +
        'separator between files: use a folder whose path has no comma.',
    );
  }
}

/**
 * `neo4j-admin database import full` arguments for files written by kgc: node ids are dense
 * integers (`--id-type=integer`: less memory and time than string ids), entities carry the
 * `Entity` label, and the input is clean, so the first bad entry fails the import.
 */
export function adminImportArguments(database: string, files: AdminImportFiles): string[] {
  return [
    'database',
    'import',
    'full',
    database,
    `--nodes=Entity=${files.nodes}`,
    `--relationships=${files.relationships}`,
    '--id-type=integer',
    '--bad-tolerance=0',
    '--overwrite-destination',
  ];
}

/** Output lines kept for an error message. */
const KEPT_LINES = 40;
/** `(2/4) Relationship import 2026-11-27 10:08:29.560+0000` */
const STAGE_STARTED = /^\((\d+)\/(\d+)\) (.+?) \d{4}-\d\d-\d\d/;
/** `.......... ..........  35% ∆0ms [550ms]`: the stage's progress. */
const STAGE_PERCENT = /(\d+)% ∆/;

/**
 * Runs the import with the instance's jars and conf (the server must be stopped: the store is
 * locked otherwise). Resolves when neo4j-admin succeeds; a failure is NEO4J_SETUP_FAILED with
 * the end of its output. The import runs in its own process group, so a signal stops its
 * forked JVM too.
 */
export async function runAdminImport(
  admin: AdminCommand,
  database: string,
  files: AdminImportFiles,
  options: AdminImportOptions = {},
): Promise<void> {
  assertImportableFolder(files.nodes, 'The node file');
  assertImportableFolder(files.relationships, 'The relationship file');
  const args = [
    '-Xmx128m',
    '-cp',
    admin.classpath,
    'org.neo4j.server.startup.Neo4jAdminCommand',
    ...adminImportArguments(database, files),
    ...(options.reportFile !== undefined ? [`--report-file=${options.reportFile}`] : []),
    ...(options.extraArgs ?? []),
  ];
  const lines: string[] = [];
  let stage = { name: '', index: 0, count: 1 };
  const keep = (line: string) => {
    if (line.trim() === '') return;
    lines.push(line);
    if (lines.length > KEPT_LINES) lines.shift();
    const started = STAGE_STARTED.exec(line);
    const percent = STAGE_PERCENT.exec(line)?.[1];
    if (started) {
      stage = {
        name: started[3] as string,
        index: Number(started[1]) - 1,
        count: Number(started[2]),
      };
      options.onProgress?.(stage.name, stage.index / stage.count);
    } else if (percent !== undefined && stage.name !== '') {
      options.onProgress?.(stage.name, (stage.index + Number(percent) / 100) / stage.count);
    }
  };
  const { code, signal } = await new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
  }>((resolve, reject) => {
    const child = spawn(admin.java, args, {
      env: admin.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stop = () => {
      if (child.pid !== undefined) killGroup(child.pid);
    };
    if (child.pid !== undefined) options.onStart?.(child.pid);
    options.signal?.addEventListener('abort', stop, { once: true });
    splitLines(child.stdout, keep);
    splitLines(child.stderr, keep);
    child.on('error', reject);
    child.on('close', (exitCode, exitSignal) => {
      options.signal?.removeEventListener('abort', stop);
      resolve({ code: exitCode, signal: exitSignal });
    });
  });
  if (code === 0) return;
  const why = options.signal?.aborted
    ? 'it was stopped'
    : signal !== null
      ? `killed by ${signal}`
      : `exit ${code}`;
  throw new KgcError(
    ErrorCode.NEO4J_SETUP_FAILED,
    `neo4j-admin database import failed (${why}). Its last lines:\n${lines.join('\n')}`,
  );
}

function splitLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (rest + chunk).split(/\r?\n/);
    rest = parts.pop() ?? '';
    for (const line of parts) onLine(line);
  });
  stream.on('end', () => {
    if (rest !== '') onLine(rest);
  });
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

/**
 * Ends an import a killed caller left running (its own process group, so it outlived the
 * caller): only a process whose command line is neo4j-admin's is signalled. Resolves once it
 * has exited (or was not running).
 */
export async function stopOrphanedImport(pid: number): Promise<void> {
  let command: string;
  try {
    command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return; // gone, or no /proc to prove what it is
  }
  if (!command.includes('Neo4jAdminCommand')) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    return;
  }
  for (let waited = 0; waited < 30_000 && fs.existsSync(`/proc/${pid}`); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
