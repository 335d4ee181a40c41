import type { Database } from '../database';
import { losslessPropertyPairs, propertiesFromPairs } from '../plain-value';

export interface EntityRecord {
  id: string;
  /** Every node property but `id`, as plain JSON. */
  properties: Record<string, unknown>;
}

/** `[key, value]` pairs, integers past 2^53 as exact decimal strings (plain-value.ts). */
const PROPERTY_PAIRS = losslessPropertyPairs('e');

const PROPERTIES_OF = `
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN e.id AS id, ${PROPERTY_PAIRS} AS properties`;

/** The entities among `ids` that exist, with their properties (one read for all). */
export async function entitiesById(
  db: Database,
  ids: readonly string[],
): Promise<Map<string, EntityRecord>> {
  const result = await db.readQuery(PROPERTIES_OF, { ids: [...new Set(ids)] });
  const found = new Map<string, EntityRecord>();
  for (const record of result.records) {
    const id = record.get('id') as string;
    const properties = propertiesFromPairs(record.get('properties') as [string, unknown][]);
    delete properties.id;
    found.set(id, { id, properties });
  }
  return found;
}
