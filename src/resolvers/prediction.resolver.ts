import { Arg, Ctx, Float, Int, Query, Resolver } from 'type-graphql';
import { ErrorCode, KgcError } from '../errors';
import { Direction } from '../schema/direction.enum';
import { MissingLinksInput } from '../schema/missing-links.input';
import { Prediction } from '../schema/prediction.type';
import { servingModel } from './arguments';
import { MAX_BATCH } from './missing-links-batcher';
import { checkMissingLinksArgs, MissingLinksArgs } from './missing-links';
import type { RequestContext } from './request-context';
import { modelKnowing } from './fold-in-wait';

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
    @Arg('typed', (_type) => Boolean, {
      defaultValue: true,
      description:
        "Only candidates in the relation's learned range (tail direction) or domain (head direction); false: every entity",
    })
    typed: boolean,
    @Ctx() context: RequestContext,
  ): Promise<Prediction[]> {
    const args: MissingLinksArgs = {
      entity,
      relation,
      k,
      direction,
      minProbability,
      excludeConnected,
      typed,
    };
    checkMissingLinksArgs(args);
    const model = await modelKnowing(context, servingModel(context.model), [entity]);
    return context.missingLinks.load({ args, model });
  }

  @Query((_returns) => [[Prediction]], {
    nullable: 'items',
    description: `missingLinks for up to ${MAX_BATCH} queries in one request (one graph read, one scoring pass); a query that fails is null, with its error at its index`,
  })
  async missingLinksBatch(
    @Arg('queries', (_type) => [MissingLinksInput]) queries: MissingLinksInput[],
    @Ctx() context: RequestContext,
  ): Promise<(Prediction[] | KgcError)[]> {
    if (queries.length === 0 || queries.length > MAX_BATCH) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `Argument queries must hold 1 to ${MAX_BATCH} queries, got ${queries.length}.`,
      );
    }
    queries.forEach((args, i) => checkMissingLinksArgs(args, `queries[${i}].`));
    const model = await modelKnowing(
      context,
      servingModel(context.model),
      queries.map((q) => q.entity),
    );
    return context.missingLinks.loadMany(queries.map((args) => ({ args, model })));
  }
}
