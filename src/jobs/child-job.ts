import type { TrainingDevice, TrainingOverrides } from '../model';

/** What the worker asks of one child: a retraining job with these settings. */
export interface ChildJobRequest {
  trigger: string;
  preset?: string;
  overrides?: TrainingOverrides;
  force?: boolean;
  /** A fresh init instead of a warm start from the active version (the full-retrain schedule). */
  fromScratch?: boolean;
  minChangedEdges?: number;
  minNewEntities?: number;
  relations?: string[];
  /** Train within this many seconds (see `planTimeBudget`). */
  timeBudgetSeconds?: number;
  /** Where training steps run (default the config's `KGC_TRAIN_DEVICE`). */
  device?: TrainingDevice;
}

/** Messages from the child to the worker, over the fork's IPC channel. */
export type ChildMessage =
  | { type: 'started'; runId: string; holder: string }
  | {
      type: 'done';
      status: string;
      version: string | null;
      promoted: boolean;
      candidateMrr: number | null;
      activeMrr: number | null;
    }
  | { type: 'failed'; code: string; message: string };
