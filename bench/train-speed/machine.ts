import { execSync } from 'node:child_process';
import os from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  loadAverage: number[];
  date: string;
}

export function describeMachine(): Machine {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpu = execSync("lscpu | sed -n 's/^Model name: *//p'", { encoding: 'utf8' }).trim() || cpu;
  } catch {
    // keep os.cpus()
  }
  return {
    cpu,
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
    date: new Date().toISOString(),
  };
}
