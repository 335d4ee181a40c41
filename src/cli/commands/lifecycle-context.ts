import { loadConfig } from '../../config';
import type { Config } from '../../config';
import { MigrationRunner, openDatabase } from '../../graph';
import type { Database } from '../../graph';
import { MIGRATIONS_DIR } from './migrate.command';

/**
 * The database of a lifecycle command (train against the graph, models, worker, retrain),
 * checked up to date: the registry relies on the constraints of the migrations.
 */
export async function withLifecycleDatabase<T>(
  work: (db: Database, config: Config) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const db = openDatabase(config);
  try {
    await new MigrationRunner(db, { dir: MIGRATIONS_DIR }).assertUpToDate();
    return await work(db, config);
  } finally {
    await db.close();
  }
}
