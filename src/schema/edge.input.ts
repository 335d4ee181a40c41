import { Field, InputType } from 'type-graphql';

@InputType({ description: 'An edge (head, relation, tail), by entity ids and relation name' })
export class EdgeInput {
  @Field((_type) => String)
  head!: string;

  @Field((_type) => String)
  relation!: string;

  @Field((_type) => String)
  tail!: string;
}
