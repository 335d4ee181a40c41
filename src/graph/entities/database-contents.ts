import type { Database } from '../database';

/** What a database holds beyond kgc's migration bookkeeping (nodes, their chain and lock). */
export interface DatabaseContents {
  /** Nodes other than `:__Neo4jMigration` and `:__Neo4jMigrationsLock`. */
  nodes: number;
  entities: number;
  /** Relationships other than the migration chain's MIGRATED_TO. */
  relationships: number;
}

/** Count-store reads only: instant whatever the graph's size. */
const CONTENTS = `
CALL () { MATCH (n) RETURN count(n) AS all }
CALL () { MATCH (n:Entity) RETURN count(n) AS entities }
CALL () { MATCH (n:__Neo4jMigration) RETURN count(n) AS migrations }
CALL () { MATCH (n:__Neo4jMigrationsLock) RETURN count(n) AS locks }
CALL () { MATCH ()-[r]->() RETURN count(r) AS edges }
CALL () { MATCH ()-[r:MIGRATED_TO]->() RETURN count(r) AS chain }
RETURN all - migrations - locks AS nodes, entities, edges - chain AS relationships`;

export async function databaseContents(db: Database): Promise<DatabaseContents> {
  const result = await db.read((tx) => tx.run(CONTENTS));
  const record = result.records[0];
  return {
    nodes: Number(record?.get('nodes') ?? 0),
    entities: Number(record?.get('entities') ?? 0),
    relationships: Number(record?.get('relationships') ?? 0),
  };
}
