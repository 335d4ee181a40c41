import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A suggested missing edge, scored by the serving model' })
export class Prediction {
  @Field((_type) => String, { description: 'The suggested entity id' })
  entity!: string;

  @Field((_type) => Int, { description: '1 = most likely' })
  rank!: number;

  @Field((_type) => Float, { description: 'The model score (a logit)' })
  logit!: number;

  @Field((_type) => Float, { description: 'sigmoid(logit)' })
  probability!: number;
}
