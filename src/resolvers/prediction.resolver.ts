import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { ErrorCode, KgcError } from '../errors';
import { knownAnswers } from '../graph';
import { Direction } from '../schema/direction.enum';
import { ModelInfo } from '../schema/model-info.type';
import { Prediction } from '../schema/prediction.type';
import type { RequestContext, ServingModel } from './request-context';

const MAX_K = 1000;

function servingModel(context: RequestContext): ServingModel {
  if (!context.model) {
    throw new KgcError(
      ErrorCode.MODEL_NOT_READY,
      'No model is being served yet: train one (`npx kgc train` or `npx kgc demo`) and start the server with it.',
    );
  }
  return context.model;
}

@Resolver()
export class PredictionResolver {
  @Query((_returns) => [Prediction], {
    description:
      'The k most likely missing edges of (entity, relation): every entity is scored, edges that exist in the graph now and rejected predictions are left out',
  })
  async missingLinks(
    @Arg('entity', (_type) => String) entity: string,
    @Arg('relation', (_type) => String) relation: string,
    @Arg('k', (_type) => Int, { defaultValue: 10 }) k: number,
    @Arg('direction', (_type) => Direction, { defaultValue: Direction.TAIL }) direction: Direction,
    @Ctx() context: RequestContext,
  ): Promise<Prediction[]> {
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `Argument k must be from 1 to ${MAX_K}, got ${k}.`,
      );
    }
    const { scorer } = servingModel(context);
    const known = await knownAnswers(context.db, entity, relation, direction);
    if (!known.entityExists) {
      throw new KgcError(
        ErrorCode.NOT_FOUND,
        `Argument entity: no entity "${entity}" in the graph.`,
      );
    }
    const entityIndex = scorer.entity(entity);
    const relationIndex = scorer.relation(relation);
    const exclude = [entityIndex];
    for (const id of [...known.existing, ...known.rejected]) {
      const index = scorer.findEntity(id);
      if (index !== undefined) exclude.push(index);
    }
    const top = scorer.topK(entityIndex, relationIndex, k, { exclude, direction });
    return top.map((row, i) => ({
      entity: row.id,
      rank: i + 1,
      logit: row.logit,
      probability: row.probability,
    }));
  }

  @Query((_returns) => ModelInfo, {
    nullable: true,
    description: 'The serving model, or null when none is loaded',
  })
  model(@Ctx() context: RequestContext): ModelInfo | null {
    if (!context.model) return null;
    const { scorer, source } = context.model;
    return {
      source,
      epoch: scorer.epoch,
      validMrr: scorer.validMrr,
      entityCount: scorer.entities.length,
      relationCount: scorer.relations.length,
    };
  }
}
