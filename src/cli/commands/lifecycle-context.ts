import { loadConfig } from '../../config';
import type { Config } from '../../config';
import type { Database } from '../../graph';
import { openMigratedDatabase } from '../migrated-database';

/**
 * The database of a lifecycle command (train against the graph, models, worker, retrain),
 * migrated (local default) or checked up to date (NEO4J_URI): the registry relies on the
 * constraints of the migrations.
 */
export async function withLifecycleDatabase<T>(
  work: (db: Database, config: Config) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const db = await openMigratedDatabase(config, (line) => process.stderr.write(`${line}\n`));
  try {
    return await work(db, config);
  } finally {
    await db.close();
  }
}
