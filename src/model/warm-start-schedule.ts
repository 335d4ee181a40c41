import type { EngineConfig } from './training-settings';

/** How much the graph changed since a version was trained (its snapshot vs a new export). */
export interface GraphChange {
  /** Edges in the new export that the version's snapshot lacks, and the reverse. */
  addedEdges: number;
  removedEdges: number;
  /** Edges of the new export. */
  triples: number;
  /** Entities / relations of the new export that the version's vocabulary lacks. */
  newEntities: number;
  newRelations: number;
  /** Entities of the new export. */
  entities: number;
}

/**
 * The warm-start schedule's constants. bench/freshness/warm-start.ts measures them on
 * FB15k-237 (5% new edges): a warm start is meant to reach a from-scratch run's validation
 * MRR within .005 in at most 30% of its time.
 */
export interface WarmStartTuning {
  /** A warm start trains at least this share of the from-scratch epochs. */
  minEpochShare: number;
  /** Epoch share per unit of change (3: 5% new edges train 15% of the epochs). */
  epochsPerChange: number;
  /** Past this change share a warm start saves little: train from scratch. */
  maxChangeShare: number;
  /** The learning rate as a share of the from-scratch one: the weights start near a minimum. */
  lrScale: number;
}

export const WARM_START_TUNING: WarmStartTuning = {
  minEpochShare: 0.1,
  epochsPerChange: 3,
  maxChangeShare: 0.25,
  lrScale: 0.5,
};

/** How a warm-started run trained, as its version records it. */
export interface WarmStartSchedule {
  /** max(changed edges / edges, new entities / entities). */
  changeShare: number;
  /** The share of the from-scratch epochs this run was given. */
  epochShare: number;
  epochs: number;
  lr: number;
  decay: number;
  evalEvery: number;
  patience: number;
  /** The from-scratch plan it was sized from. */
  fullEpochs: number;
  fullLr: number;
}

/** What a version records of its warm start: the change, the schedule, the engine's mapping. */
export interface WarmStartRecord {
  change: GraphChange;
  schedule: WarmStartSchedule;
  /**
   * Rows copied by name, new entities' rows (folded in from their edges where they have one to a
   * known entity, else fresh) and new relations' (absent when the engine did not report them).
   */
  mapping?: {
    copiedEntities: number;
    newEntities: number;
    /** Absent in versions trained before new entities were folded in. */
    foldedInEntities?: number;
    copiedRelations: number;
    newRelations: number;
    droppedEntities: number;
  };
}

/** The share of the graph that is new or changed: edges, or entities, whichever is larger. */
export function changeShare(change: GraphChange): number {
  const edges = (change.addedEdges + change.removedEdges) / Math.max(1, change.triples);
  const entities = change.newEntities / Math.max(1, change.entities);
  return Math.min(1, Math.max(edges, entities));
}

/**
 * The warm-started run's config, from the config a from-scratch run would use: epochs ∝
 * max(min share, change share) of its epochs, lr scaled down for fine-tuning and annealed over
 * the shorter run to the same final fraction (decay^(full/warm epochs)), validation often
 * enough for early stopping to act (at least 5 validations); patience unchanged. Null when so
 * much changed that a warm start would save little (train from scratch).
 */
export function warmStartSchedule(
  full: EngineConfig,
  change: GraphChange,
  tuning: WarmStartTuning = WARM_START_TUNING,
): { config: EngineConfig; schedule: WarmStartSchedule } | null {
  const share = changeShare(change);
  if (share > tuning.maxChangeShare) return null;
  const fullEpochs = Number(full.epochs);
  const epochShare = Math.min(1, Math.max(tuning.minEpochShare, tuning.epochsPerChange * share));
  // Less a hair: 40 x (3 x 0.05) is 6.000000000000001 in floating point, not 7 epochs' worth.
  const epochs = Math.max(1, Math.ceil(fullEpochs * epochShare - 1e-9));
  const lr = full.lr * tuning.lrScale;
  const decay = full.decay === 1 ? 1 : Math.pow(full.decay, fullEpochs / epochs);
  const evalEvery =
    full.evalEvery === 0 ? 0 : Math.max(1, Math.min(full.evalEvery, Math.floor(epochs / 5)));
  const config: EngineConfig = { ...full, epochs, lr, decay, evalEvery };
  return {
    config,
    schedule: {
      changeShare: share,
      epochShare,
      epochs,
      lr,
      decay,
      evalEvery,
      patience: full.patience,
      fullEpochs,
      fullLr: full.lr,
    },
  };
}

/**
 * Why a model trained with `trained` cannot warm-start a run with `next` (the engine refuses
 * these too: widths, reverse-relation mode, activation), or a changed loss (its logits mean
 * something else); null when it can.
 */
export function warmStartIncompatibility(trained: EngineConfig, next: EngineConfig): string | null {
  const differ: string[] = [];
  const same = <K extends keyof EngineConfig>(key: K, fallback?: EngineConfig[K]) => {
    const a = trained[key] ?? fallback;
    const b = next[key] ?? fallback;
    if (a !== b) differ.push(`${key} ${String(a)} → ${String(b)}`);
  };
  same('entityDim');
  same('relationDim');
  same('inverseMode');
  same('activation');
  same('loss', 'bce');
  return differ.length > 0 ? `the settings changed (${differ.join(', ')})` : null;
}

/** The log line of a warm start: "warm start from v3 (4.8% new edges, 12 new entities): 6 epochs". */
export function describeWarmStart(
  from: string,
  change: GraphChange,
  schedule: WarmStartSchedule,
): string {
  const pct = ((100 * change.addedEdges) / Math.max(1, change.triples)).toFixed(1);
  return (
    `warm start from ${from} (${pct}% new edges, ${change.newEntities} new entities, ` +
    `${change.newRelations} new relations): ${schedule.epochs} epochs ` +
    `(${Math.round(100 * schedule.epochShare)}% of ${schedule.fullEpochs}) at lr ${schedule.lr.toPrecision(3)}`
  );
}
