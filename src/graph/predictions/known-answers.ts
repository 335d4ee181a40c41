import type { Database } from '../database';

export type Direction = 'tail' | 'head';

/** What must never be suggested for a query: edges that exist and predictions rejected. */
export interface KnownAnswers {
  entityExists: boolean;
  /** Tails of existing (entity, relation, ?) edges; heads for direction 'head'. */
  existing: string[];
  rejected: string[];
  /** Every entity linked to `entity` by any relation, either way (only when asked for). */
  connected: string[];
}

const NEIGHBOURS = `CASE WHEN $connected AND x IS NOT NULL THEN [(x)--(n:Entity) | n.id] ELSE [] END`;

const TAIL_QUERY = `
OPTIONAL MATCH (x:Entity {id: $entity})
OPTIONAL MATCH (x)-[e]->(t:Entity) WHERE type(e) = $relation
WITH x, collect(DISTINCT t.id) AS existing
OPTIONAL MATCH (p:RejectedPrediction {head: $entity, relation: $relation})
WITH x, existing, collect(p.tail) AS rejected
RETURN x IS NOT NULL AS entityExists, existing, rejected, ${NEIGHBOURS} AS connected`;

const HEAD_QUERY = `
OPTIONAL MATCH (x:Entity {id: $entity})
OPTIONAL MATCH (h:Entity)-[e]->(x) WHERE type(e) = $relation
WITH x, collect(DISTINCT h.id) AS existing
OPTIONAL MATCH (p:RejectedPrediction {tail: $entity, relation: $relation})
WITH x, existing, collect(p.head) AS rejected
RETURN x IS NOT NULL AS entityExists, existing, rejected, ${NEIGHBOURS} AS connected`;

/** Read at query time, so an edge added a second ago is already filtered out. */
export async function knownAnswers(
  db: Database,
  entity: string,
  relation: string,
  direction: Direction,
  options: { connected?: boolean } = {},
): Promise<KnownAnswers> {
  const result = await db.read((tx) =>
    tx.run(direction === 'tail' ? TAIL_QUERY : HEAD_QUERY, {
      entity,
      relation,
      connected: options.connected === true,
    }),
  );
  const record = result.records[0];
  return {
    entityExists: Boolean(record?.get('entityExists')),
    existing: (record?.get('existing') as string[] | undefined) ?? [],
    rejected: (record?.get('rejected') as string[] | undefined) ?? [],
    connected: (record?.get('connected') as string[] | undefined) ?? [],
  };
}
