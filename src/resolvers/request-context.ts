import type DataLoader from 'dataloader';
import type { Database, EntityRecord } from '../graph';
import type { FoldInService, ServingModel } from '../model';
import type { ApiMetrics } from './api-metrics';
import type { Prediction } from '../schema/prediction.type';
import type { Reason } from '../schema/reason.type';
import type { Role } from '../schema/role';
import type { MissingLinksBatcher } from './missing-links-batcher';
import type { StalenessTracker } from './staleness-tracker';

/** Who sent the request: the API key's name and role, or null for anonymous. */
export interface Caller {
  name: string;
  role: Role;
}

/** Per-request batching of graph reads (one query for all entities a response needs). */
export interface RequestLoaders {
  entity: DataLoader<string, EntityRecord | undefined>;
  /** A prediction's reasons (schema/reason.type.ts), read for the whole request at once. */
  reasons: DataLoader<Prediction, Reason[]>;
}

/**
 * What every resolver gets. `model` is the serving model taken once when the request started,
 * so one request never mixes two versions, even across a hot reload.
 */
export interface RequestContext {
  db: Database;
  model: ServingModel | undefined;
  version: string;
  caller: Caller | null;
  /** Whether API keys are configured at all (decides UNAUTHENTICATED vs FORBIDDEN). */
  keysConfigured: boolean;
  loaders: RequestLoaders;
  /** Server-wide: batches missingLinks across concurrent requests. */
  missingLinks: MissingLinksBatcher;
  metrics?: ApiMetrics;
  /** The model registry's scope (KGC_REGISTRY_SCOPE). */
  registryScope?: string;
  /** Server-wide: the serving version's staleness (Query.model.staleness, kgc_stale_* gauges). */
  staleness?: StalenessTracker;
  /** Folds in entities added after training (absent: they are not in the model). */
  foldIn?: FoldInService;
}
