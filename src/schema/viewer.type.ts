import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'The API key that sent the request' })
export class Viewer {
  @Field((_type) => String, { description: "The key's name" })
  name!: string;

  @Field((_type) => String, { description: 'reader or admin' })
  role!: string;
}
