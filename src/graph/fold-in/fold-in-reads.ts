import neo4j from 'neo4j-driver';
import type { Database } from '../database';
import { SUGGESTED_TYPE } from '../suggestions/suggested-type';

/** One edge of an entity, seen from that entity. */
interface EntityEdge {
  relation: string;
  /** The entity at the edge's other end. */
  other: string;
  /** true: `(entity, relation, other)`; false: `(other, relation, entity)`. */
  outgoing: boolean;
}

/** What fold-in reads of an entity: its edges (up to the cap) and its labels. */
interface EntityNeighbourhood {
  edges: EntityEdge[];
  /** Labels other than Entity (types of the entity where the version learned labels). */
  labels: string[];
}

/**
 * One read for many entities: row i answers `$ids[i]`; an absent entity has no row. Both
 * directions through the `id` uniqueness index; the stored suggestions are not edges.
 */
const ENTITY_EDGES = `
UNWIND range(0, size($ids) - 1) AS i
MATCH (x:Entity {id: $ids[i]})
RETURN i,
  [l IN labels(x) WHERE l <> 'Entity'] AS labels,
  COLLECT {
    MATCH (x)-[e]-(o:Entity) WHERE type(e) <> $suggested
    RETURN [type(e), o.id, startNode(e) = x] LIMIT $limit
  } AS edges`;

/**
 * The edges of each entity now (undefined: no such entity), at most `limit` each: fold-in
 * fits an embedding to them. Read at call time, so an edge ingested a moment ago counts.
 */
export async function entityNeighbourhoods(
  db: Database,
  ids: readonly string[],
  limit: number,
): Promise<(EntityNeighbourhood | undefined)[]> {
  const answers: (EntityNeighbourhood | undefined)[] = ids.map(() => undefined);
  if (ids.length === 0) return answers;
  const result = await db.readQuery(ENTITY_EDGES, {
    ids: [...ids],
    limit: neo4j.int(limit),
    suggested: SUGGESTED_TYPE,
  });
  for (const record of result.records) {
    const rows = record.get('edges') as [string, string, boolean][];
    answers[Number(record.get('i'))] = {
      labels: record.get('labels') as string[],
      edges: rows.map(([relation, other, outgoing]) => ({ relation, other, outgoing })),
    };
  }
  return answers;
}

/**
 * Entity ids after `after`, in id order (the uniqueness index serves the order), with each
 * one's degree (read from the node's relationship counts, constant time per node).
 */
const ENTITY_PAGE = `
MATCH (e:Entity) WHERE e.id > $after
RETURN e.id AS id, COUNT { (e)--() } AS degree ORDER BY id LIMIT $limit`;

/** One page of the graph's entities: `ids[i]` has `degrees[i]` edges (either direction). */
interface EntityPage {
  ids: string[];
  degrees: number[];
}

/** Every entity of the graph with its degree, one page at a time (memory holds one page). */
export async function* entityPages(db: Database, pageSize: number): AsyncGenerator<EntityPage> {
  let after = '';
  for (;;) {
    const result = await db.readQuery(ENTITY_PAGE, { after, limit: neo4j.int(pageSize) });
    const ids = result.records.map((r) => r.get('id') as string);
    const degrees = result.records.map((r) => Number(r.get('degree')));
    if (ids.length > 0) yield { ids, degrees };
    if (ids.length < pageSize) return;
    after = ids[ids.length - 1] as string;
  }
}

/** Both counts come from Neo4j's count store: constant time, however large the graph. */
const GRAPH_COUNTS = `
CALL () { MATCH (e:Entity) RETURN count(e) AS entities }
CALL () { MATCH ()-[r]->() RETURN count(r) AS edges }
RETURN entities, edges`;

/**
 * A cheap stamp of the graph's size: it changes when entities or edges are added or removed
 * (an ingest, a write-back), which is when new entities may need folding in.
 */
export async function graphChangeStamp(db: Database): Promise<string> {
  const result = await db.readQuery(GRAPH_COUNTS, {});
  const record = result.records[0];
  return record ? `${String(record.get('entities'))}/${String(record.get('edges'))}` : '0/0';
}
