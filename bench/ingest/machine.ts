import { execSync } from 'node:child_process';
import os from 'node:os';

/** The machine a benchmark ran on, for its committed results. */
export function describeMachine(): Record<string, string> {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    const line = execSync('lscpu', { encoding: 'utf8' })
      .split('\n')
      .find((l) => l.startsWith('Model name'));
    if (line) cpu = line.split(':')[1]?.trim() ?? cpu;
  } catch {
    // lscpu missing: keep Node's view
  }
  return {
    cpu,
    nproc: String(os.cpus().length),
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    'load average at start (1/5/15 min)': os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' / '),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
  };
}
