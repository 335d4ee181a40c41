import { Field, Float, ObjectType } from 'type-graphql';

@ObjectType({ description: 'An accepted prediction: an edge of the graph with its provenance' })
export class AcceptedEdge {
  @Field((_type) => String)
  head!: string;

  @Field((_type) => String)
  relation!: string;

  @Field((_type) => String)
  tail!: string;

  @Field((_type) => String, {
    nullable: true,
    description: 'The serving model version that scored it at acceptance',
  })
  modelVersion!: string | null;

  @Field((_type) => Float, {
    nullable: true,
    description:
      'Logit at acceptance, re-scored by the serving model (null: it could not score the edge)',
  })
  logit!: number | null;

  @Field((_type) => Float, {
    nullable: true,
    description: 'the probability (calibrated, as missingLinks reports it) at acceptance',
  })
  probability!: number | null;

  @Field((_type) => String, { description: 'The name of the API key that accepted it' })
  acceptedBy!: string;

  @Field((_type) => String, { description: 'When, ISO 8601' })
  acceptedAt!: string;
}
