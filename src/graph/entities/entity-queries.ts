import type { Database } from '../database';
import { plainProperties } from '../plain-value';

export interface EntityRecord {
  id: string;
  /** Every node property but `id`, as plain JSON. */
  properties: Record<string, unknown>;
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
