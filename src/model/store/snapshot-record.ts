import fs from 'node:fs';
import path from 'node:path';
import { VERSION_FILE } from './version-info';

/** What a served version records of the graph it was trained from (staleness compares to it). */
export interface SnapshotRecord {
  /** Distinct edges the version was trained from (train, valid and test together). */
  triples: number;
  /** The relation types exported, null: all of them. */
  relationFilter: string[] | null;
}

/**
 * The snapshot part of a version's version.json, or undefined where there is none (a `kgc train
 * --out` directory) or it is unreadable: the model still serves, its staleness in edges is unknown.
 */
export function readSnapshotRecord(dir: string): SnapshotRecord | undefined {
  try {
    const info = JSON.parse(fs.readFileSync(path.join(dir, VERSION_FILE), 'utf8')) as {
      snapshot?: { triples?: unknown; relationFilter?: unknown };
    };
    const triples = info.snapshot?.triples;
    if (typeof triples !== 'number' || !Number.isInteger(triples) || triples < 0) return undefined;
    const filter = info.snapshot?.relationFilter;
    const relationFilter =
      Array.isArray(filter) && filter.every((r) => typeof r === 'string')
        ? (filter as string[])
        : null;
    return { triples, relationFilter };
  } catch {
    return undefined;
  }
}
