import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A relation of the graph or of the serving model' })
export class RelationInfo {
  @Field((_type) => String)
  name!: string;

  @Field((_type) => Int, { description: 'Edges of this relation in the graph now' })
  edgeCount!: number;

  @Field((_type) => Boolean, {
    description: 'Whether the serving model knows it (missingLinks can answer for it)',
  })
  inModel!: boolean;
}
