import type { Config } from '../config';
import { Database, MigrationRunner, openDatabase } from '../graph';
import { Scorer } from '../model';
import { listen, RunningServer } from './http-server';

export interface StartServerOptions {
  migrationsDir: string;
  /** The migration chain to check; tests use their own. */
  migrationChain?: string;
  /** The model to serve (a `kgc train --out` folder); missingLinks answers MODEL_NOT_READY without. */
  modelDir?: string;
}

/**
 * Starts the API: refuses (MIGRATIONS_PENDING, naming them) on a database with pending
 * migrations, and (DATABASE_UNAVAILABLE) when Neo4j does not answer.
 */
export async function startServer(
  config: Config,
  options: StartServerOptions,
  db: Database = openDatabase(config),
): Promise<RunningServer & { db: Database }> {
  try {
    await db.ping();
    await new MigrationRunner(db, {
      dir: options.migrationsDir,
      chain: options.migrationChain,
    }).assertUpToDate();
    const model = options.modelDir
      ? { scorer: Scorer.load(options.modelDir), source: options.modelDir }
      : undefined;
    const running = await listen(db, model, config.http.host, config.http.port);
    return {
      ...running,
      db,
      stop: async () => {
        await running.stop();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
