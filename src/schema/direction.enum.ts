import { registerEnumType } from 'type-graphql';

export enum Direction {
  TAIL = 'tail',
  HEAD = 'head',
}

registerEnumType(Direction, {
  name: 'Direction',
  description:
    'TAIL: missing tails of (entity, relation, ?); HEAD: missing heads of (?, relation, entity)',
});
