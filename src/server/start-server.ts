import path from 'node:path';
import type { Config } from '../config';
import { Database, MigrationRunner, openDatabase } from '../graph';
import { Scorer } from '../model';
import type { ServingModel } from '../resolvers';
import { listen, RunningServer } from './http-server';
import { Logger, silentLogger } from './logger';

export interface StartServerOptions {
  migrationsDir: string;
  /** The migration chain to check; tests use their own. */
  migrationChain?: string;
  /** The model to serve (a `kgc train --out` folder); missingLinks answers MODEL_NOT_READY without. */
  modelDir?: string;
  logger?: Logger;
}

/** Loads a model directory for serving; its version is the directory's name. */
export function loadServingModel(dir: string): ServingModel {
  const name = path.basename(path.resolve(dir));
  return { scorer: Scorer.load(dir), source: name, version: name };
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
  const logger = options.logger ?? silentLogger;
  try {
    await db.ping();
    await new MigrationRunner(db, {
      dir: options.migrationsDir,
      chain: options.migrationChain,
    }).assertUpToDate();
    const model = options.modelDir ? loadServingModel(options.modelDir) : undefined;
    if (config.api.keys.length === 0) {
      logger.warn(
        'No API keys configured (KGC_API_KEYS): anonymous reads are allowed and every mutation is refused.',
      );
    }
    const running = await listen(
      { db, model: () => model, api: config.api, logger },
      config.http.host,
      config.http.port,
    );
    return {
      ...running,
      db,
      stop: async (drainMs?: number) => {
        await running.stop(drainMs);
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
