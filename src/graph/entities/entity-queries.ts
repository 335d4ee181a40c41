import type { Database } from '../database';
import { relationshipTypeLiteral } from '../identifiers';
import { plainProperties } from '../plain-value';

export interface EntityRecord {
  id: string;
  /** Every node property but `id`, as plain JSON. */
  properties: Record<string, unknown>;
}

export interface RelationCount {
  name: string;
  edgeCount: number;
}

const PROPERTIES_OF = `
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN e.id AS id, properties(e) AS properties`;

/** The entities among `ids` that exist, with their properties (one read for all). */
export async function entitiesById(
  db: Database,
  ids: readonly string[],
): Promise<Map<string, EntityRecord>> {
  const result = await db.readQuery(PROPERTIES_OF, { ids: [...new Set(ids)] });
  const found = new Map<string, EntityRecord>();
  for (const record of result.records) {
    const id = record.get('id') as string;
    const properties = { ...(record.get('properties') as Record<string, unknown>) };
    delete properties.id;
    found.set(id, { id, properties: plainProperties(properties) });
  }
  return found;
}

/**
 * Every relationship type in use from entities, with its edge count from Neo4j's count store
 * (constant time per type: the type must be static in the query for the planner to use it, so
 * the validated, escaped names are written into the query text).
 */
export async function relationCounts(db: Database): Promise<RelationCount[]> {
  const types = await db.read(async (tx) => {
    const result = await tx.run(
      'CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType',
    );
    return result.records.map((r) => r.get('relationshipType') as string);
  });
  // Types of other nodes (the migration chain, the model registry) count 0 from :Entity.
  const usable = types;
  if (usable.length === 0) return [];
  const counts = await db.read(async (tx) => {
    const query = usable
      .map(
        (name, i) =>
          `MATCH (:Entity)-[:${relationshipTypeLiteral(name)}]->() RETURN ${i} AS i, count(*) AS n`,
      )
      .join('\nUNION ALL\n');
    const result = await tx.run(query);
    return result.records.map((r) => [r.get('i') as number, r.get('n') as number] as const);
  });
  return counts
    .map(([i, n]) => ({ name: usable[i] as string, edgeCount: n }))
    .filter((r) => r.edgeCount > 0)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Whether any edge of type `relation` exists (count store, constant time). */
export async function relationInGraph(db: Database, relation: string): Promise<boolean> {
  const literal = relationshipTypeLiteral(relation);
  const result = await db.read((tx) =>
    tx.run(`MATCH (:Entity)-[:${literal}]->() RETURN count(*) AS n`),
  );
  return Number(result.records[0]?.get('n') ?? 0) > 0;
}
