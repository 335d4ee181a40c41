/**
 * Which end of `(head, relation, tail)` a query ranks: `tail` ranks the tails of
 * (entity, relation, ?); `head` ranks the heads of (?, relation, entity), through the reverse
 * relation. The GraphQL enum (src/schema/direction.enum.ts) carries the same values.
 */
export type Direction = 'tail' | 'head';
