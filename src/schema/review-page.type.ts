import { Field, ObjectType } from 'type-graphql';
import { ReviewItem } from './review-item.type';

@ObjectType({ description: 'A page of the review queue, most probable first' })
export class ReviewPage {
  @Field((_type) => [ReviewItem])
  items!: ReviewItem[];

  @Field((_type) => String, {
    nullable: true,
    description: 'Pass as `after` for the next page (null when this page is empty)',
  })
  endCursor!: string | null;

  @Field((_type) => Boolean)
  hasMore!: boolean;

  /** Counts the list's undecided items (one graph read over all of them): only when asked for. */
  countPending!: () => Promise<number>;
}
