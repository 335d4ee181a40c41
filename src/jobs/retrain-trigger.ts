import type { ActiveVersion } from '../graph/registry';
import { changedKeys } from '../export';
import { readVersionEdges } from '../model';

/** What moved in the graph since the active version was trained. */
export interface ChangeSinceActive {
  /** Edges added plus edges removed. */
  changedEdges: number;
  /** Entities of the new snapshot the active version's vocabulary lacks. */
  newEntities: number;
}

/**
 * When a scheduled run trains. 0 turns a threshold off; with both off every run trains.
 * Otherwise it trains when any threshold that is on is reached.
 */
export interface RetrainThresholds {
  minChangedEdges: number;
  minNewEntities: number;
}

export interface RetrainDecision {
  train: boolean;
  /** Says what triggered the run or why it was skipped (the job's log line). */
  reason: string;
}

/**
 * Compares the snapshot just exported with the active version's record; an unreadable record
 * counts as everything changed (Infinity), so the run trains rather than trusting nothing.
 */
export function changeSinceActive(
  active: ActiveVersion,
  snapshot: Float64Array,
  entities: readonly string[],
): ChangeSinceActive {
  let recorded: ReturnType<typeof readVersionEdges>;
  try {
    recorded = readVersionEdges(active.dir);
  } catch {
    return { changedEdges: Infinity, newEntities: Infinity };
  }
  const changedEdges = changedKeys(recorded.snapshot, snapshot);
  const known = new Set(recorded.entities);
  const newEntities = entities.reduce((n, id) => (known.has(id) ? n : n + 1), 0);
  return { changedEdges, newEntities };
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Whether a run with these changes trains, and the sentence that says why. */
export function retrainDecision(
  change: ChangeSinceActive,
  thresholds: RetrainThresholds,
  since: string,
): RetrainDecision {
  const { minChangedEdges, minNewEntities } = thresholds;
  const edges = plural(change.changedEdges, 'edge changed', 'edges changed');
  const entities = plural(change.newEntities, 'new entity', 'new entities');
  const state = `${edges}, ${entities} since ${since}`;
  if (minChangedEdges <= 0 && minNewEntities <= 0) {
    return { train: true, reason: `training: ${state} (no change threshold set)` };
  }
  const reached: string[] = [];
  const missed: string[] = [];
  if (minChangedEdges > 0) {
    const line = `${minChangedEdges} changed edge(s)`;
    (change.changedEdges >= minChangedEdges ? reached : missed).push(line);
  }
  if (minNewEntities > 0) {
    const line = `${minNewEntities} new entit${minNewEntities === 1 ? 'y' : 'ies'}`;
    (change.newEntities >= minNewEntities ? reached : missed).push(line);
  }
  if (reached.length > 0) {
    return { train: true, reason: `training: ${state}; reached ${reached.join(' and ')}` };
  }
  return { train: false, reason: `skipped: ${state}; below ${missed.join(' and ')}` };
}
