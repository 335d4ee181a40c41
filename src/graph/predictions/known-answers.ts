import type { Database } from '../database';

export type Direction = 'tail' | 'head';

/** What must never be suggested for a query: edges that exist and predictions rejected. */
export interface KnownAnswers {
  entityExists: boolean;
  /** Tails of existing (entity, relation, ?) edges; heads for direction 'head'. */
  existing: string[];
  rejected: string[];
}

const TAIL_QUERY = `
OPTIONAL MATCH (h:Entity {id: $entity})
OPTIONAL MATCH (h)-[e]->(t:Entity) WHERE type(e) = $relation
WITH h, collect(DISTINCT t.id) AS existing
OPTIONAL MATCH (p:RejectedPrediction {head: $entity, relation: $relation})
RETURN h IS NOT NULL AS entityExists, existing, collect(p.tail) AS rejected`;

const HEAD_QUERY = `
OPTIONAL MATCH (t:Entity {id: $entity})
OPTIONAL MATCH (h:Entity)-[e]->(t) WHERE type(e) = $relation
WITH t, collect(DISTINCT h.id) AS existing
OPTIONAL MATCH (p:RejectedPrediction {tail: $entity, relation: $relation})
RETURN t IS NOT NULL AS entityExists, existing, collect(p.head) AS rejected`;

/** Read at query time, so an edge added a second ago is already filtered out. */
export async function knownAnswers(
  db: Database,
  entity: string,
  relation: string,
  direction: Direction,
): Promise<KnownAnswers> {
  const result = await db.read((tx) =>
    tx.run(direction === 'tail' ? TAIL_QUERY : HEAD_QUERY, { entity, relation }),
  );
  const record = result.records[0];
  return {
    entityExists: Boolean(record?.get('entityExists')),
    existing: (record?.get('existing') as string[] | undefined) ?? [],
    rejected: (record?.get('rejected') as string[] | undefined) ?? [],
  };
}
