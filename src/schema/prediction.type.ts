import { Field, Float, Int, ObjectType } from 'type-graphql';
import type { Direction } from '../direction';
import { Entity } from './entity.type';
import { Reason } from './reason.type';

/** The query a prediction answers (not in the schema: the `reasons` field resolver reads it). */
export interface PredictionQuery {
  /** The query's entity id. */
  entity: string;
  relation: string;
  direction: Direction;
  /** The serving model that scored it (held by the request). */
  model: unknown;
}

@ObjectType({ description: 'A suggested missing edge, scored by the serving model' })
export class Prediction {
  @Field((_type) => Entity, { description: 'The suggested entity' })
  entity!: Entity;

  @Field((_type) => Int, { description: '1 = most likely' })
  rank!: number;

  @Field((_type) => Float, {
    description:
      "The served score (a logit): the model's, plus its rules' evidence where the version combines them (docs/api.md); the list's order",
  })
  logit!: number;

  @Field((_type) => Float, {
    description:
      "Calibrated probability that the edge is true: the version's calibrator for this relation " +
      'and direction applied to the logit (fitted on held-out edges against rejected predictions ' +
      'and sampled false edges; docs/api.md). Versions without calibration report sigmoid(logit).',
  })
  probability!: number;

  @Field((_type) => Boolean, {
    nullable: true,
    description:
      "Whether the entity is in the relation's learned range (tail direction) or domain (head direction); null when the serving version learned no types",
  })
  typeConsistent!: boolean | null;

  @Field((_type) => String, { description: 'The model version that scored it' })
  modelVersion!: string;

  @Field((_type) => Boolean, {
    description:
      'Whether the queried entity was folded in: added after the version was trained, its embedding fitted from its edges to entities the model knows (docs/api.md, "New entities: fold-in")',
  })
  foldedIn!: boolean;

  @Field((_type) => [Reason], {
    description:
      'Up to 3 reasons from the graph: paths that instantiate rules mined with the model version, else known edges of entities like the query entity (read only when asked for)',
  })
  reasons?: Reason[];

  /** Not a GraphQL field: the query this prediction answers. */
  query?: PredictionQuery;
}
