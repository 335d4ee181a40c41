import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A model version in the registry, with its held-out metrics' })
export class ModelVersion {
  @Field((_type) => String)
  version!: string;

  @Field((_type) => String, { description: 'candidate, active, retired or rejected' })
  status!: string;

  @Field((_type) => Boolean)
  active!: boolean;

  @Field((_type) => String, { description: 'When it was trained, ISO 8601' })
  createdAt!: string;

  @Field((_type) => String, { nullable: true, description: 'When it was last promoted' })
  promotedAt!: string | null;

  @Field((_type) => String, { description: 'What started its training: manual, schedule, ...' })
  trigger!: string;

  @Field((_type) => Float, { nullable: true, description: 'MRR on its held-out test edges' })
  testMrr!: number | null;

  @Field((_type) => Int, { description: 'Edges of the graph it was trained from' })
  triples!: number;

  @Field((_type) => Int)
  entities!: number;

  @Field((_type) => Int)
  relations!: number;

  @Field((_type) => GraphQLJSONObject, {
    nullable: true,
    description: 'Held-out metrics (test, valid: MRR, MR, Hits@1/3/10, per relation)',
  })
  metrics!: Record<string, unknown> | null;

  @Field((_type) => GraphQLJSONObject, {
    nullable: true,
    description: "The promotion gate's outcome (both MRRs on the same held-out edges)",
  })
  gate!: Record<string, unknown> | null;

  /** The version directory: read for the diagrams, never sent to clients. */
  dir!: string;
}
