import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * What tells a process apart from a later one that reuses its PID: its start time, in clock
 * ticks since boot (field 22 of /proc/<pid>/stat), or `ps`'s start time where there is no /proc.
 * Undefined when no such process runs.
 */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[22 - 3];
  } catch {
    if (fs.existsSync('/proc/self/stat')) return undefined;
    return psField(pid, 'lstart=');
  }
}

/** The process's command line (arguments joined by spaces), or undefined when none runs. */
export function processCommandLine(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    if (fs.existsSync('/proc/self/cmdline')) return undefined;
    return psField(pid, 'command=');
  }
}

function psField(pid: number, field: string): string | undefined {
  const result = spawnSync('ps', ['-o', field, '-p', String(pid)], { encoding: 'utf8' });
  const value = result.status === 0 ? result.stdout.trim() : '';
  return value === '' ? undefined : value;
}
