import type { Database } from '../database';
import { SUGGESTED_TYPE } from '../suggestions/suggested-type';
import { relationCounts } from './relation-counts';

/**
 * Entities with at least one edge to or from another entity (written suggestions left out),
 * optionally of the given relation types only: the entities a training run of that scope takes
 * into its vocabulary (the export reads exactly the edges between entities).
 */
const CONNECTED_ENTITIES = `
MATCH (e:Entity)
WHERE EXISTS { (e)-[r]-(:Entity) WHERE type(r) <> $suggested }
RETURN e.id AS id`;

const CONNECTED_ENTITIES_OF_RELATIONS = `
MATCH (e:Entity)
WHERE EXISTS { (e)-[r]-(:Entity) WHERE type(r) <> $suggested AND type(r) IN $relations }
RETURN e.id AS id`;

function connectedEntitiesQuery(scoped: boolean): string {
  return scoped ? CONNECTED_ENTITIES_OF_RELATIONS : CONNECTED_ENTITIES;
}

/**
 * Edges leaving entities, of `relations` only when given, from Neo4j's count store: constant
 * time per relationship type, whatever the graph's size (relation-counts.ts).
 */
export async function entityEdgeCount(
  db: Database,
  relations: readonly string[] | null,
): Promise<number> {
  const scope = relations ? new Set(relations) : null;
  let sum = 0;
  for (const { name, edgeCount } of await relationCounts(db)) {
    if (!scope || scope.has(name)) sum += edgeCount;
  }
  return sum;
}

/** Entity nodes in the graph, from the count store (one lookup). */
export async function entityNodeCount(db: Database): Promise<number> {
  const result = await db.readQuery('MATCH (e:Entity) RETURN count(e) AS n');
  return Number(result.records[0]?.get('n') ?? 0);
}

/**
 * How many connected entities (of `relations` only when given) `known` does not know. One scan
 * of the entity nodes: the ids stream through (the driver pulls them a batch at a time) and only
 * the count is kept, so memory stays flat on any graph size.
 */
export async function countUnknownEntities(
  db: Database,
  relations: readonly string[] | null,
  known: (id: string) => boolean,
): Promise<number> {
  return db.read(async (tx) => {
    const result = tx.run(connectedEntitiesQuery(relations !== null), {
      suggested: SUGGESTED_TYPE,
      relations,
    });
    let unknown = 0;
    for await (const record of result) {
      if (!known(record.get(0) as string)) unknown += 1;
    }
    return unknown;
  });
}
