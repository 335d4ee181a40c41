import { HealthResolver } from './health.resolver';

/** Every resolver class of the API; buildSchema takes this list. */
export const resolvers = [HealthResolver] as const;
export type { RequestContext } from './request-context';
