import type { Direction } from '../../direction';
import type { Database } from '../database';
import { SUGGESTED_TYPE } from '../suggestions/suggested-type';

export interface KnownAnswersQuery {
  entity: string;
  relation: string;
  direction: Direction;
  /** Also list every entity linked to `entity` by any relation, either way. */
  connected?: boolean;
}

/** What must never be suggested for a query: edges that exist and predictions rejected. */
export interface KnownAnswers {
  entityExists: boolean;
  /** Tails of existing (entity, relation, ?) edges; heads for direction 'head'. */
  existing: string[];
  rejected: string[];
  /** Every entity linked to `entity` by any relation, either way (only when asked for). */
  connected: string[];
}

/**
 * One read for many queries (a request's batch, or requests that arrived together): row i
 * answers `$queries[i]`. Comprehensions and COLLECT subqueries keep one row per query.
 */
const KNOWN_ANSWERS = `
UNWIND range(0, size($queries) - 1) AS i
WITH i, $queries[i] AS q
OPTIONAL MATCH (x:Entity {id: q.entity})
RETURN i,
  x IS NOT NULL AS entityExists,
  CASE WHEN x IS NULL THEN []
       WHEN q.tail THEN [(x)-[e]->(t:Entity) WHERE type(e) = q.relation | t.id]
       ELSE [(h:Entity)-[e]->(x) WHERE type(e) = q.relation | h.id] END AS existing,
  CASE WHEN q.tail
       THEN COLLECT { MATCH (p:RejectedPrediction {head: q.entity, relation: q.relation}) RETURN p.tail }
       ELSE COLLECT { MATCH (p:RejectedPrediction {tail: q.entity, relation: q.relation}) RETURN p.head }
  END AS rejected,
  CASE WHEN x IS NOT NULL AND q.connected THEN [(x)-[e]-(n:Entity) WHERE type(e) <> $suggested | n.id] ELSE [] END AS connected`;

/** Read at query time, so an edge added a moment before the request is already filtered out. */
export async function knownAnswersBatch(
  db: Database,
  queries: readonly KnownAnswersQuery[],
): Promise<KnownAnswers[]> {
  if (queries.length === 0) return [];
  const params = queries.map((q) => ({
    entity: q.entity,
    relation: q.relation,
    tail: q.direction === 'tail',
    connected: q.connected === true,
  }));
  const result = await db.readQuery(KNOWN_ANSWERS, { queries: params, suggested: SUGGESTED_TYPE });
  const answers: KnownAnswers[] = queries.map(() => ({
    entityExists: false,
    existing: [],
    rejected: [],
    connected: [],
  }));
  for (const record of result.records) {
    answers[record.get('i') as number] = {
      entityExists: record.get('entityExists') as boolean,
      existing: record.get('existing') as string[],
      rejected: record.get('rejected') as string[],
      connected: record.get('connected') as string[],
    };
  }
  return answers;
}
