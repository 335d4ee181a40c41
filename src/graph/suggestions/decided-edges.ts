import type { Database } from '../database';
import { rejectionKey } from '../predictions/edge-key';

/** An edge of one relation: `[head id, tail id]`. */
export type EdgePair = readonly [string, string];

/**
 * Row i: whether edge i has been decided: it is in the graph now (accepted, or a fact added
 * since), or its prediction was rejected. One read for the whole window; the rejection is found
 * by its unique key (index lookup), the edge from its head.
 */
const DECIDED = `
UNWIND range(0, size($edges) - 1) AS i
WITH i, $edges[i] AS e
RETURN i,
  EXISTS { MATCH (:Entity {id: e[0]})-[x]->(:Entity {id: e[1]}) WHERE type(x) = $relation }
  OR EXISTS { MATCH (:RejectedPrediction {key: e[2]}) } AS decided`;

/** Whether each edge of `relation` has been decided (read at query time: a decision counts at once). */
export async function decidedEdges(
  db: Database,
  relation: string,
  edges: readonly EdgePair[],
): Promise<boolean[]> {
  if (edges.length === 0) return [];
  const params = edges.map(([head, tail]) => [head, tail, rejectionKey({ head, relation, tail })]);
  const result = await db.readQuery(DECIDED, { edges: params, relation });
  const out = edges.map(() => false);
  for (const record of result.records)
    out[record.get('i') as number] = record.get('decided') as boolean;
  return out;
}
