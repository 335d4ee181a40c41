import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A rejected prediction: never suggested again' })
export class Rejection {
  @Field((_type) => String)
  head!: string;

  @Field((_type) => String)
  relation!: string;

  @Field((_type) => String)
  tail!: string;

  @Field((_type) => String, { nullable: true })
  reason!: string | null;

  @Field((_type) => String, { nullable: true, description: 'The name of the API key' })
  rejectedBy!: string | null;

  @Field((_type) => String, { nullable: true, description: 'When, ISO 8601' })
  rejectedAt!: string | null;

  @Field((_type) => String, { nullable: true, description: 'The serving model version then' })
  modelVersion!: string | null;
}
