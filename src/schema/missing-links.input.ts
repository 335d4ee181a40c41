import { Field, Float, InputType, Int } from 'type-graphql';
import { Direction } from './direction.enum';

@InputType({ description: 'One missingLinks query, for missingLinksBatch' })
export class MissingLinksInput {
  @Field((_type) => String)
  entity!: string;

  @Field((_type) => String)
  relation!: string;

  @Field((_type) => Int, { defaultValue: 10, description: '1 to 1000' })
  k!: number;

  @Field((_type) => Direction, { defaultValue: Direction.TAIL })
  direction!: Direction;

  @Field((_type) => Float, { nullable: true })
  minProbability?: number | null;

  @Field((_type) => Boolean, { defaultValue: false })
  excludeConnected!: boolean;

  @Field((_type) => Boolean, {
    defaultValue: true,
    description: "Only candidates in the relation's learned range / domain; false: every entity",
  })
  typed!: boolean;
}
