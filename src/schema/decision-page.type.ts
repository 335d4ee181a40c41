import { Field, ObjectType } from 'type-graphql';
import { Decision } from './decision.type';

@ObjectType({ description: 'A page of decisions, newest first' })
export class DecisionPage {
  @Field((_type) => [Decision])
  items!: Decision[];

  @Field((_type) => String, {
    nullable: true,
    description: 'Pass as `after` for the next page (null when this page is empty)',
  })
  endCursor!: string | null;

  @Field((_type) => Boolean)
  hasMore!: boolean;
}
