import { Env, readEnum, readInt, readNumber } from './env-readers';

/** Fold-in of entities added after training (docs/api.md, "New entities: fold-in"). */
export interface FoldInConfig {
  /** KGC_FOLD_IN=off: new entities answer ENTITY_NOT_IN_MODEL until a retraining. */
  enabled: boolean;
  /** Optimiser steps fitting one entity's embedding against the frozen model. */
  steps: number;
  /**
   * Candidates per entity scored between the fit's full passes (its targets, its hardest
   * negatives, a weighted sample of the rest); 0: every step scores all entities.
   */
  candidates: number;
  /** Entities fitted per engine call. */
  maxBatch: number;
  /** Edges of one entity read for its fit (a hub's first ones). */
  maxEdges: number;
  /** How often `kgc serve` looks for entities ingested by another process. */
  pollMs: number;
  /** How long a request for a new entity waits for its fold-in before ENTITY_NOT_IN_MODEL. */
  waitMs: number;
  /**
   * The most a fold-in may lower the version's canary MRR (its held-out known edges); entities
   * that would lower it further are held back until the next retraining.
   */
  maxHarm: number;
  /** Entities one version folds in at most; past it new entities wait for the next retraining. */
  maxEntities: number;
}

export function readFoldIn(env: Env): FoldInConfig {
  return {
    enabled: readEnum(env, 'KGC_FOLD_IN', 'on', ['on', 'off'] as const) === 'on',
    steps: readInt(env, 'KGC_FOLD_IN_STEPS', 15, { min: 1, max: 10_000 }),
    candidates: readInt(env, 'KGC_FOLD_IN_CANDIDATES', 1024, { min: 0, max: 1_000_000 }),
    maxBatch: readInt(env, 'KGC_FOLD_IN_MAX_BATCH', 256, { min: 1, max: 100_000 }),
    maxEdges: readInt(env, 'KGC_FOLD_IN_MAX_EDGES', 1000, { min: 1, max: 1_000_000 }),
    pollMs: 1000 * readInt(env, 'KGC_FOLD_IN_POLL_SECONDS', 2, { min: 1, max: 3600 }),
    waitMs: readInt(env, 'KGC_FOLD_IN_WAIT_MS', 5000, { min: 0, max: 600_000 }),
    maxHarm: readNumber(env, 'KGC_FOLD_IN_MAX_HARM', 0.005, { min: 0, max: 1 }),
    maxEntities: readInt(env, 'KGC_FOLD_IN_MAX_ENTITIES', 100_000, { min: 0, max: 10_000_000 }),
  };
}
