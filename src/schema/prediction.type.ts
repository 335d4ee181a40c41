import { Field, Float, Int, ObjectType } from 'type-graphql';
import { Entity } from './entity.type';

@ObjectType({ description: 'A suggested missing edge, scored by the serving model' })
export class Prediction {
  @Field((_type) => Entity, { description: 'The suggested entity' })
  entity!: Entity;

  @Field((_type) => Int, { description: '1 = most likely' })
  rank!: number;

  @Field((_type) => Float, { description: 'The model score (a logit)' })
  logit!: number;

  @Field((_type) => Float, { description: 'sigmoid(logit)' })
  probability!: number;

  @Field((_type) => Boolean, {
    nullable: true,
    description:
      "Whether the entity is in the relation's learned range (tail direction) or domain (head direction); null when the serving version learned no types",
  })
  typeConsistent!: boolean | null;

  @Field((_type) => String, { description: 'The model version that scored it' })
  modelVersion!: string;
}
