import { Ctx, Query, Resolver } from 'type-graphql';
import { Health } from '../schema/health.type';
import type { RequestContext } from './request-context';

@Resolver()
export class HealthResolver {
  @Query((_returns) => Health, { description: 'Liveness of the service and its database' })
  async health(@Ctx() context: RequestContext): Promise<Health> {
    await context.db.ping();
    return { status: 'ok', database: context.db.databaseName, version: context.version };
  }
}
