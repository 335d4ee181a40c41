import { Arg, Ctx, Float, Int, Query, Resolver } from 'type-graphql';
import { Direction } from '../schema/direction.enum';
import { ReviewPage } from '../schema/review-page.type';
import { ReviewStats } from '../schema/review-stats.type';
import { checkId, checkIntRange, servingModel } from './arguments';
import type { RequestContext } from './request-context';
import { checkMinProbability, reviewPage } from './review-queue';
import { reviewStats } from './review-stats';

export const MAX_REVIEW_PAGE = 200;

@Resolver()
export class ReviewResolver {
  @Query((_returns) => ReviewPage, {
    description:
      "The active version's suggestions nobody has decided yet, most probable first (`npx kgc suggest` stores them; none stored: an empty page)",
  })
  async reviewQueue(
    @Arg('relation', (_type) => String) relation: string,
    @Arg('direction', (_type) => Direction, { defaultValue: Direction.TAIL }) direction: Direction,
    @Arg('minProbability', (_type) => Float, {
      nullable: true,
      description: 'Leave out suggestions below this probability (0 to 1)',
    })
    minProbability: number | null | undefined,
    @Arg('first', (_type) => Int, { defaultValue: 50, description: `1 to ${MAX_REVIEW_PAGE}` })
    first: number,
    @Arg('after', (_type) => String, { nullable: true, description: 'endCursor of the last page' })
    after: string | null | undefined,
    @Ctx() context: RequestContext,
  ): Promise<ReviewPage> {
    checkId('relation', relation);
    checkIntRange('first', first, 1, MAX_REVIEW_PAGE);
    checkMinProbability(minProbability);
    const model = servingModel(context.model);
    return reviewPage(context.db, model, { relation, direction, minProbability, first, after });
  }

  @Query((_returns) => ReviewStats, {
    description: "Decisions on a relation's suggestions, and how well the probabilities held",
  })
  async reviewStats(
    @Arg('relation', (_type) => String) relation: string,
    @Ctx() context: RequestContext,
  ): Promise<ReviewStats> {
    checkId('relation', relation);
    return reviewStats(context.db, servingModel(context.model), relation);
  }
}
