import { Field, Float, ObjectType } from 'type-graphql';
import { Direction } from './direction.enum';
import { Entity } from './entity.type';
import type { PredictionQuery } from './prediction.type';
import { Reason } from './reason.type';

@ObjectType({
  description: 'One suggestion of the review queue: a missing edge nobody has decided',
})
export class ReviewItem {
  @Field((_type) => Entity)
  head!: Entity;

  @Field((_type) => String)
  relation!: string;

  @Field((_type) => Entity)
  tail!: Entity;

  @Field((_type) => Direction, {
    description:
      'TAIL: suggested as a missing tail of (head, relation); HEAD: as a missing head of (relation, tail)',
  })
  direction!: Direction;

  @Field((_type) => Float, { description: 'Calibrated probability that the edge is true' })
  probability!: number;

  @Field((_type) => Float, { description: 'The model score (a logit)' })
  logit!: number;

  @Field((_type) => String, { description: 'The model version that suggested it' })
  modelVersion!: string;

  @Field((_type) => Boolean, {
    nullable: true,
    description:
      "Whether the suggested end is in the relation's learned range (tail) or domain (head); null when the version learned no types",
  })
  typeConsistent!: boolean | null;

  @Field((_type) => [Reason], {
    description:
      'Up to 3 reasons from the graph, as missingLinks gives them (read only when asked for)',
  })
  reasons?: Reason[];

  /** Not a GraphQL field: the query whose answer the suggestion is (for its reasons). */
  query!: PredictionQuery;
}
