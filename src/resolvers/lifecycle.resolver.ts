import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { listTrainingRuns, requestRetraining } from '../graph/registry';
import { Role } from '../schema/role';
import { RetrainRequest, TrainingRunPage } from '../schema/training-run.type';
import { checkIntRange } from './arguments';
import type { RequestContext } from './request-context';

const MAX_PAGE = 100;

@Resolver()
export class LifecycleResolver {
  @Authorized(Role.ADMIN)
  @Query((_returns) => TrainingRunPage, {
    description: "Retraining runs, newest first: the current run's progress and the history",
  })
  async trainingRuns(
    @Arg('first', (_type) => Int, { defaultValue: 10, description: `1 to ${MAX_PAGE}` })
    first: number,
    @Arg('after', (_type) => String, { nullable: true, description: 'endCursor of the last page' })
    after: string | null | undefined,
    @Ctx() context: RequestContext,
  ): Promise<TrainingRunPage> {
    checkIntRange('first', first, 1, MAX_PAGE);
    const page = await listTrainingRuns(context.db, { first, after }, context.registryScope);
    return page;
  }

  @Authorized(Role.ADMIN)
  @Mutation((_returns) => RetrainRequest, {
    description: 'Asks the worker (`kgc worker`) to retrain now; it runs one job at a time',
  })
  async requestRetraining(@Ctx() context: RequestContext): Promise<RetrainRequest> {
    return requestRetraining(
      context.db,
      { requestedBy: context.caller?.name ?? 'anonymous' },
      context.registryScope,
    );
  }
}
