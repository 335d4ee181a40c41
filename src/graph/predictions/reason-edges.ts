import type { Database } from '../database';
import type { PathEdge } from './reason-paths';

/**
 * Which of the edges still exist, in one read. Both ends are seeked by id and joined by an
 * Expand(Into): Neo4j walks the relationships of the end with fewer of them and keeps those of
 * the type, so an edge costs at most its smaller end's degree. The index hints matter: without
 * them Neo4j 5.26 plans a scan of the whole id index and an Expand(All) from a hub (the plan is
 * checked in test/integration/graph/reason-edges.test.ts). The type is a parameter compared
 * with type(), never spliced.
 */
const EDGES_PRESENT = `
UNWIND range(0, size($edges) - 1) AS i
WITH i, $edges[i] AS e
MATCH (h:Entity {id: e.head})-[r]->(t:Entity {id: e.tail})
USING INDEX h:Entity(id)
USING INDEX t:Entity(id)
WHERE type(r) = e.relation
RETURN DISTINCT i`;

/** Exported for the plan check (test/integration/graph/reason-edges.test.ts). */
export const REASON_EDGES_QUERY = EDGES_PRESENT;

/** Per edge, whether the graph holds it now (in order). */
export async function reasonEdgesPresent(
  db: Database,
  edges: readonly PathEdge[],
): Promise<boolean[]> {
  const present = edges.map(() => false);
  if (edges.length === 0) return present;
  const result = await db.readQuery(EDGES_PRESENT, {
    edges: edges.map(({ head, relation, tail }) => ({ head, relation, tail })),
  });
  for (const record of result.records) present[Number(record.get('i'))] = true;
  return present;
}
