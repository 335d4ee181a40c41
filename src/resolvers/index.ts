import { HealthResolver } from './health.resolver';
import { PredictionResolver } from './prediction.resolver';

/** Every resolver class of the API; buildSchema takes this list. */
export const resolvers = [HealthResolver, PredictionResolver] as const;
export type { RequestContext, ServingModel } from './request-context';
