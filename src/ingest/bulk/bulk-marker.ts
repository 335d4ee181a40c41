import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../../process-alive';
import type { BulkPhase } from './bulk-progress';

/**
 * What a bulk load in progress records beside the store (`<instance>/import/kgc-bulk.json`), so
 * that the next one can tell a killed load from a finished one and finish the job: removed when
 * the load ends (done or failed), left behind only by a process that was killed.
 */
export interface BulkMarker {
  /** The loading process. */
  pid: number;
  startedAt: string;
  /** The step it had reached. */
  phase: BulkPhase;
  /** Its import files' folder. */
  work: string;
  /** neo4j-admin's pid while it imports (its process group outlives a killed loader). */
  adminPid?: number;
}

const FILE = 'kgc-bulk.json';

export function readBulkMarker(folder: string): BulkMarker | undefined {
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(folder, FILE), 'utf8')) as BulkMarker;
    return Number.isInteger(marker.pid) && typeof marker.phase === 'string' ? marker : undefined;
  } catch {
    return undefined;
  }
}

/** Replaces the marker whole (a reader never sees half of one). */
export function writeBulkMarker(folder: string, marker: BulkMarker): void {
  const file = path.join(folder, FILE);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(marker));
  fs.renameSync(`${file}.tmp`, file);
}

export function removeBulkMarker(folder: string): void {
  fs.rmSync(path.join(folder, FILE), { force: true });
}

/** Whether the marker's process still runs (a load in progress, not one that was killed). */
export function isLoaderAlive(marker: BulkMarker): boolean {
  return isProcessAlive(marker.pid);
}
