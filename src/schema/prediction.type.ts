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

  @Field((_type) => Float, {
    description:
      "Calibrated probability that the edge is true: the version's calibrator for this relation " +
      'and direction applied to the logit (fitted on held-out edges against rejected predictions ' +
      'and sampled false edges; docs/api.md). Versions without calibration report sigmoid(logit).',
  })
  probability!: number;

  @Field((_type) => String, { description: 'The model version that scored it' })
  modelVersion!: string;
}
