import { Field, Int, ObjectType } from 'type-graphql';
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

  @Field((_type) => Int, {
    description: 'Undecided suggestions of this relation and direction (minProbability aside)',
  })
  pending!: number;
}
