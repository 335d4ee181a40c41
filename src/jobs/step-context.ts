import type { StableSplitOptions } from '../export';
import type { Database } from '../graph';
import type { LeaseToken } from '../graph/registry';
import type { ModelStore } from '../model';
import type { PhaseTimer } from './job-phases';
import type { RetrainOptions, RetrainResult } from './retrain-types';

/** What every phase of one job shares. */
export interface StepContext {
  db: Database;
  store: ModelStore;
  scope: string;
  runId: string;
  trigger: string;
  timer: PhaseTimer;
  /** Temporary directories to remove if the job fails. */
  tempDirs: string[];
  signal: AbortSignal;
  /** The job's lease: the promotion's transaction checks it still holds. */
  lease: LeaseToken;
  split: StableSplitOptions;
  options: RetrainOptions;
  log: (line: string) => void;
}

export type StepResult = Omit<RetrainResult, 'runId' | 'timings'>;
