import { Arg, Ctx, Float, Int, Query, Resolver } from 'type-graphql';
import { Direction } from '../schema/direction.enum';
import { Prediction } from '../schema/prediction.type';
import { missingLinks } from './missing-links';
import type { RequestContext } from './request-context';

@Resolver()
export class PredictionResolver {
  @Query((_returns) => [Prediction], {
    description:
      'The k most likely missing edges of (entity, relation): every entity is scored; edges in the graph now, rejected predictions and the entity itself are left out',
  })
  async missingLinks(
    @Arg('entity', (_type) => String) entity: string,
    @Arg('relation', (_type) => String) relation: string,
    @Arg('k', (_type) => Int, { defaultValue: 10, description: '1 to 1000' }) k: number,
    @Arg('direction', (_type) => Direction, { defaultValue: Direction.TAIL }) direction: Direction,
    @Arg('minProbability', (_type) => Float, {
      nullable: true,
      description: 'Leave out answers below this probability (0 to 1)',
    })
    minProbability: number | null | undefined,
    @Arg('excludeConnected', (_type) => Boolean, {
      defaultValue: false,
      description: 'Also leave out every entity already linked to `entity` by any relation',
    })
    excludeConnected: boolean,
    @Ctx() context: RequestContext,
  ): Promise<Prediction[]> {
    return missingLinks(context, {
      entity,
      relation,
      k,
      direction,
      minProbability,
      excludeConnected,
    });
  }
}
