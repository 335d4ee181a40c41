import path from 'node:path';
import type { Config } from '../config';
import { Database, MigrationRunner, openDatabase } from '../graph';
import { REPO_ROOT } from '../repo-root';

export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'migrations');

/**
 * A database every graph command may use: on the local default, pending migrations are applied
 * first (and `log` says so); on NEO4J_URI (a server someone else runs) pending migrations are
 * refused with MIGRATIONS_PENDING, naming `npx kgc migrate`. Without the uniqueness constraint
 * every MERGE scans all entities, so nothing may run before them.
 */
export async function openMigratedDatabase(
  config: Config,
  log: (line: string) => void,
): Promise<Database> {
  const db = openDatabase(config);
  try {
    const runner = new MigrationRunner(db, { dir: MIGRATIONS_DIR });
    if (config.neo4j.kind === 'local') {
      const applied = await runner.migrate();
      if (applied.length > 0) {
        log(
          `Applied ${applied.length} pending migration(s) to the local Neo4j: ${applied.map((m) => m.file).join(', ')}.`,
        );
      }
    } else {
      await runner.assertUpToDate();
    }
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}
