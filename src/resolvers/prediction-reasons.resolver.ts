import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { Prediction } from '../schema/prediction.type';
import { Reason } from '../schema/reason.type';
import type { RequestContext } from './request-context';

@Resolver((_of) => Prediction)
export class PredictionReasonsResolver {
  /** Batched per request: every prediction's reasons in one graph read (loaders.ts). */
  @FieldResolver((_type) => [Reason])
  async reasons(@Root() prediction: Prediction, @Ctx() context: RequestContext): Promise<Reason[]> {
    if (prediction.reasons) return prediction.reasons;
    return context.loaders.reasons.load(prediction);
  }
}
