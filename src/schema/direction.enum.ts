import { registerEnumType } from 'type-graphql';

/** The GraphQL face of src/direction.ts: the same values. */
export enum Direction {
  TAIL = 'tail',
  HEAD = 'head',
}

registerEnumType(Direction, {
  name: 'Direction',
  description:
    'TAIL: missing tails of (entity, relation, ?); HEAD: missing heads of (?, relation, entity)',
});
