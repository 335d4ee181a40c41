import { DecisionResolver } from './decision.resolver';
import { EdgeProbabilityResolver } from './edge-probability.resolver';
import { EntityResolver } from './entity.resolver';
import { HealthResolver } from './health.resolver';
import { LifecycleResolver } from './lifecycle.resolver';
import { ModelResolver } from './model.resolver';
import { ModelVersionResolver } from './model-version.resolver';
import { PredictionResolver } from './prediction.resolver';
import { PredictionReasonsResolver } from './prediction-reasons.resolver';
import { ReviewResolver } from './review.resolver';
import { ReviewPagePendingResolver, ReviewStatsPendingResolver } from './review-pending.resolver';
import { ReviewItemReasonsResolver } from './review-item-reasons.resolver';
import { StalenessResolver } from './staleness.resolver';

/** Every resolver class of the API; buildSchema takes this list. */
export const resolvers = [
  HealthResolver,
  PredictionResolver,
  EdgeProbabilityResolver,
  PredictionReasonsResolver,
  EntityResolver,
  ModelResolver,
  DecisionResolver,
  LifecycleResolver,
  ModelVersionResolver,
  ReviewResolver,
  ReviewPagePendingResolver,
  ReviewStatsPendingResolver,
  ReviewItemReasonsResolver,
  StalenessResolver,
] as const;
export { authChecker } from './auth-checker';
export { createLoaders, REASONS_BATCH } from './loaders';
export type { Caller, RequestContext } from './request-context';
export type { ApiMetrics } from './api-metrics';
export { MAX_BATCH, MissingLinksBatcher } from './missing-links-batcher';
export { StalenessTracker } from './staleness-tracker';
export type { StalenessCounts } from './staleness-tracker';
export {
  FIELD_COSTS,
  REASONS_ROW_COST,
  REDUCE_COST_HINT,
  SCORING_COST,
  CONNECTED_COST,
  costContext,
} from './query-cost';
export type { CostContext } from './query-cost';
