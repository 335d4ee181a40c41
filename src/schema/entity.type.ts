import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'An entity of the graph, (:Entity {id})' })
export class Entity {
  @Field((_type) => String)
  id!: string;

  // Resolved by EntityResolver (one read per request for all entities that ask).
  @Field((_type) => GraphQLJSONObject, {
    description: "The node's properties other than id, as a JSON object",
  })
  properties?: Record<string, unknown>;
}
