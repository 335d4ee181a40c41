import { changedKeys } from '../export';
import type { ActiveVersion } from '../graph/registry';
import {
  describeWarmStart,
  openVersionDir,
  readVersionEdges,
  warmStartIncompatibility,
  warmStartSchedule,
} from '../model';
import type {
  EngineConfig,
  GraphChange,
  TrainingArrays,
  TrainSummary,
  VersionInfo,
  WarmStartRecord,
} from '../model';

/** How the job's training run starts: a fresh init, or the active version's weights. */
export interface TrainingStart {
  /** The config to train with: the from-scratch one, or its warm-start schedule. */
  config: EngineConfig;
  /** The active version's directory and id when warm-starting. */
  warmStartFrom?: { version: string; dir: string };
  record?: WarmStartRecord;
  /** Why a fresh init, when it is one. */
  fromScratch?: string;
}

export interface TrainingStartInput {
  active: ActiveVersion | null;
  /** `kgc train --from-scratch`, the worker's full-retrain schedule. */
  forceFromScratch: boolean;
  data: TrainingArrays;
  /** Sorted keys of every edge of the new export. */
  snapshot: Float64Array;
  /** The config a from-scratch run would use. */
  config: EngineConfig;
  log: (line: string) => void;
}

/** Counts what the new export has that the version's snapshot and vocabularies lack. */
export function graphChange(
  old: { entities: string[]; relations: string[]; snapshot: Float64Array },
  data: TrainingArrays,
  snapshot: Float64Array,
): GraphChange {
  const changed = changedKeys(old.snapshot, snapshot);
  // changed = added + removed, and added - removed = new count - old count.
  const addedEdges = (changed + snapshot.length - old.snapshot.length) / 2;
  const known = new Set(old.entities);
  const knownRelations = new Set(old.relations);
  return {
    addedEdges,
    removedEdges: changed - addedEdges,
    triples: snapshot.length,
    newEntities: data.entities.filter((e) => !known.has(e)).length,
    newRelations: data.relations.filter((r) => !knownRelations.has(r)).length,
    entities: data.entities.length,
  };
}

/**
 * Warm start by default: from the active version when there is one, its settings are
 * compatible and the change is small enough for a shorter schedule to pay; otherwise (or when
 * forced) a fresh init, with the reason logged.
 */
export function planTrainingStart(input: TrainingStartInput): TrainingStart {
  const scratch = (why: string): TrainingStart => {
    input.log(`training from scratch: ${why}`);
    return { config: input.config, fromScratch: why };
  };
  const { active } = input;
  if (input.forceFromScratch) return scratch('asked for (--from-scratch or the full schedule)');
  if (!active) return scratch('no active version to start from');
  let trained: EngineConfig;
  let change: GraphChange;
  try {
    trained = openVersionDir(active.dir).info.config;
    change = graphChange(readVersionEdges(active.dir), input.data, input.snapshot);
  } catch (error) {
    return scratch(
      `the active version ${active.version} is unreadable (${(error as Error).message})`,
    );
  }
  const incompatible = warmStartIncompatibility(trained, input.config);
  if (incompatible) return scratch(`${incompatible} since ${active.version}`);
  const warm = warmStartSchedule(input.config, change);
  if (!warm) {
    const pct = (100 * Math.max(change.addedEdges + change.removedEdges, 0)) / change.triples;
    return scratch(`too much changed since ${active.version} (${pct.toFixed(1)}% of the edges)`);
  }
  input.log(describeWarmStart(active.version, change, warm.schedule));
  return {
    config: warm.config,
    warmStartFrom: { version: active.version, dir: active.dir },
    record: { change, schedule: warm.schedule },
  };
}

/** What the version records of how its training started (VersionInfo.training's fields). */
export function trainingStartInfo(
  start: TrainingStart,
  summary: TrainSummary,
): Pick<VersionInfo['training'], 'warmStartFrom' | 'warmStart' | 'fromScratch'> {
  if (!start.warmStartFrom || !start.record) {
    return { warmStartFrom: null, fromScratch: start.fromScratch };
  }
  return {
    warmStartFrom: start.warmStartFrom.version,
    warmStart: { ...start.record, ...(summary.warmStart ? { mapping: summary.warmStart } : {}) },
  };
}

/**
 * train()'s options for this start: a warm start keeps a time budget's limit but not its
 * anneal (its own schedule anneals over its fewer epochs).
 */
export function startTrainOptions(
  start: TrainingStart,
  budget: { timeLimitSeconds?: number; annealToTimeLimit?: boolean },
): { timeLimitSeconds?: number; annealToTimeLimit?: boolean; warmStartFrom?: string } {
  if (!start.warmStartFrom) return budget;
  return { timeLimitSeconds: budget.timeLimitSeconds, warmStartFrom: start.warmStartFrom.dir };
}
