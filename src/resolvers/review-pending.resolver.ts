import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { ReviewPage } from '../schema/review-page.type';
import { ReviewStats } from '../schema/review-stats.type';

@Resolver((_of) => ReviewPage)
export class ReviewPagePendingResolver {
  /**
   * Read only when selected: it checks every stored item of the list against the graph, which
   * costs more than the page itself (the review page asks for it beside the counts, after the
   * first items are drawn).
   */
  @FieldResolver((_type) => Int, {
    description: 'Undecided suggestions of this relation and direction (minProbability aside)',
  })
  pending(@Root() page: ReviewPage): Promise<number> {
    return page.countPending();
  }
}

@Resolver((_of) => ReviewStats)
export class ReviewStatsPendingResolver {
  /** Read only when selected, as ReviewPage.pending. */
  @FieldResolver((_type) => Int, {
    description: 'Undecided suggestions of the relation (either direction)',
  })
  pending(@Root() stats: ReviewStats): Promise<number> {
    return stats.countPending();
  }
}
