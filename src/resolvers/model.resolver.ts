import { Ctx, Query, Resolver } from 'type-graphql';
import { ModelInfo } from '../schema/model-info.type';
import type { RequestContext } from './request-context';

@Resolver()
export class ModelResolver {
  @Query((_returns) => ModelInfo, {
    nullable: true,
    description: 'The serving model, or null when none is loaded',
  })
  model(@Ctx() context: RequestContext): ModelInfo | null {
    if (!context.model) return null;
    const { scorer, source, version } = context.model;
    return {
      version,
      source,
      epoch: scorer.epoch,
      validMrr: scorer.validMrr,
      entityCount: scorer.entities.length,
      relationCount: scorer.relations.length,
    };
  }
}
