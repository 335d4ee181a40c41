import { Field, Float, ID, ObjectType } from 'type-graphql';
import { DecisionKind } from './decision-kind.enum';

@ObjectType({ description: 'An admin decision on a prediction: who, when, what, which model' })
export class Decision {
  @Field((_type) => ID)
  id!: string;

  @Field((_type) => DecisionKind)
  kind!: DecisionKind;

  @Field((_type) => String)
  head!: string;

  @Field((_type) => String)
  relation!: string;

  @Field((_type) => String)
  tail!: string;

  @Field((_type) => String, { description: 'The name of the API key' })
  by!: string;

  @Field((_type) => String, { description: 'When, ISO 8601' })
  at!: string;

  @Field((_type) => String, { nullable: true })
  modelVersion!: string | null;

  @Field((_type) => Float, { nullable: true })
  logit!: number | null;

  @Field((_type) => Float, { nullable: true })
  probability!: number | null;

  @Field((_type) => String, { nullable: true })
  reason!: string | null;
}
