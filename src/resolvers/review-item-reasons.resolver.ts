import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Prediction } from '../schema/prediction.type';
import { Reason } from '../schema/reason.type';
import { ReviewItem } from '../schema/review-item.type';
import type { RequestContext } from './request-context';

@Resolver((_of) => ReviewItem)
export class ReviewItemReasonsResolver {
  /**
   * The item as the prediction it is (the suggested end answering its query), so the request's
   * reasons loader reads every item's reasons in one graph read with missingLinks' answers.
   */
  @FieldResolver((_type) => [Reason])
  async reasons(@Root() item: ReviewItem, @Ctx() context: RequestContext): Promise<Reason[]> {
    if (item.reasons) return item.reasons;
    const suggested = item.query.direction === 'tail' ? item.tail : item.head;
    const prediction: Prediction = {
      entity: suggested,
      rank: 0,
      logit: item.logit,
      probability: item.probability,
      typeConsistent: item.typeConsistent,
      modelVersion: item.modelVersion,
      foldedIn: false,
      query: item.query,
    };
    return context.loaders.reasons.load(prediction);
  }
}
