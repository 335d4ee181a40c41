import type { DatabaseClientConfig } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import { Database, type LocalNeo4j } from '../../graph';
import { databaseContents, type DatabaseContents } from '../../graph/entities/database-contents';

/**
 * What the running local instance's database holds; fails when the instance is not running (the
 * bulk load restarts a server the user started, it does not start one of its own).
 */
export async function localDatabaseContents(
  server: LocalNeo4j,
  client: DatabaseClientConfig,
): Promise<DatabaseContents> {
  const target = server.connection();
  if (!target) {
    throw new KgcError(
      ErrorCode.DATABASE_UNAVAILABLE,
      'The local Neo4j is not running: start it with `npx kgc neo4j start` (a bulk load stops and restarts it).',
    );
  }
  const db = new Database(target, client);
  try {
    return await databaseContents(db);
  } finally {
    await db.close();
  }
}

/**
 * neo4j-admin's import replaces the whole database, so a bulk load only goes into one that holds
 * nothing but kgc's migration bookkeeping: entities, model versions, decisions and rejections
 * would all be lost otherwise.
 */
export async function assertEmptyDatabase(
  server: LocalNeo4j,
  client: DatabaseClientConfig,
): Promise<void> {
  const contents = await localDatabaseContents(server, client);
  if (contents.nodes === 0 && contents.relationships === 0) return;
  throw new KgcError(
    ErrorCode.BAD_USER_INPUT,
    `The local database is not empty (${describeContents(contents)}); nothing was changed. ` +
      '--bulk only loads an empty database, as neo4j-admin import replaces the whole store. ' +
      'Add to this graph with `npx kgc ingest <files…>` (without --bulk), or start from an empty ' +
      `database: \`npx kgc neo4j stop\`, remove ${server.dir} (its data and generated password ` +
      'are lost), `npx kgc neo4j start`.',
  );
}

export function describeContents(contents: DatabaseContents): string {
  const others = contents.nodes - contents.entities;
  return (
    `${contents.entities.toLocaleString('en')} entities, ` +
    `${others.toLocaleString('en')} other nodes, ` +
    `${contents.relationships.toLocaleString('en')} relationships`
  );
}
