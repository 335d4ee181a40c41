import { Field, ObjectType } from 'type-graphql';

@ObjectType({ description: 'Whether the service and its database are up' })
export class Health {
  @Field((_type) => String, { description: '"ok" when Neo4j answers a query' })
  status!: string;

  @Field((_type) => String, { description: 'The Neo4j database the service uses' })
  database!: string;

  @Field((_type) => String, { description: 'The service version' })
  version!: string;
}
