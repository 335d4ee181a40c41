import type { EdgeFilter } from '../graph';
import type { StableSplitOptions } from '../export';
import type {
  EngineConfig,
  Metrics,
  ModelStore,
  TrainingDevice,
  TrainingOverrides,
  TrainingProgress,
} from '../model';
import type { GateResult } from './promotion-gate';

export interface RetrainOptions {
  /** What started the job: `manual` (kgc train), `schedule`, `request`, ... */
  trigger?: string;
  preset?: string;
  overrides?: TrainingOverrides;
  /** Train as well as possible within this many seconds on this machine (`planTimeBudget`). */
  timeBudgetSeconds?: number;
  /**
   * Search the sensitive settings within this many seconds, train the winner, and store the
   * winning settings for the scope's later retraining (`tune`).
   */
  tuneSeconds?: number;
  /** Where training steps run (`kgc train --device`; default the config's `KGC_TRAIN_DEVICE`). */
  device?: TrainingDevice;
  /** Reuse the scope's stored tuned settings when they fit the graph (default true). */
  useTunedSettings?: boolean;
  filter?: EdgeFilter;
  split?: Partial<StableSplitOptions>;
  /** Promote whatever the gate says. */
  force?: boolean;
  /**
   * Train from a fresh init even when the active version could warm-start the run (the
   * default: its weights, a schedule sized to the change; see src/jobs/training-start.ts).
   */
  fromScratch?: boolean;
  /**
   * Skip (status `skipped`) unless at least this many edges changed since the active version
   * or `minNewEntities` is reached (0: off; both off: never skip; retrain-trigger.ts).
   */
  minChangedEdges?: number;
  /** With `minChangedEdges`: train when at least this many new entities arrived (0: off). */
  minNewEntities?: number;
  signal?: AbortSignal;
  onProgress?: (event: TrainingProgress) => void;
  onPhase?: (phase: string) => void;
  /** The engine config resolved for this graph, before training starts. */
  onTrainingConfig?: (config: EngineConfig) => void;
  /**
   * Called after the gate, just before the promotion's transaction (tests change the world
   * there: take the lease over, roll back).
   */
  beforePromote?: () => Promise<void>;
  /** Called once the run is recorded (its id) and holds the lease (its holder). */
  onRunStarted?: (run: { runId: string; holder: string }) => void;
  log?: (line: string) => void;
  /** Defaults from config: the model store, the registry scope, the lease's time to live. */
  store?: ModelStore;
  scope?: string;
  leaseSeconds?: number;
  /** The run's progress is written at most this often. */
  progressIntervalMs?: number;
}

export interface RetrainResult {
  runId: string;
  status: 'succeeded' | 'rejected' | 'skipped';
  version: string | null;
  dir: string | null;
  promoted: boolean;
  /** The gate's scores on the edges both were compared on (candidate alone: its test MRR). */
  candidateMrr: number | null;
  activeMrr: number | null;
  /** The version active before the job (still active unless promoted). */
  previousActive: string | null;
  gate: GateResult | null;
  /** The candidate's metrics on all current held-out test edges, overall and per relation. */
  metrics: Metrics | null;
  changedEdges: number | null;
  /** Why nothing was promoted (the gate's verdict, a changed active version); null otherwise. */
  reason: string | null;
  timings: Record<string, number>;
}
