import type { Config } from '../config';
import { Database, MigrationRunner, openDatabase } from '../graph';
import { loadServingModel } from '../model';
import { listen, RunningServer } from './http-server';
import { Logger, silentLogger } from './logger';
import { ServerMetrics } from './metrics';
import { ReadinessCheck } from './readiness';

export interface StartServerOptions {
  migrationsDir: string;
  /** The migration chain to check; tests use their own. */
  migrationChain?: string;
  /** The model to serve (a `kgc train --out` folder); missingLinks answers MODEL_NOT_READY without. */
  modelDir?: string;
  logger?: Logger;
}

export type StartedServer = RunningServer & { db: Database; metrics: ServerMetrics };

/** The API's database: fails fast while Neo4j is away, and reports read latency. */
export function openServingDatabase(config: Config, metrics: ServerMetrics): Database {
  return openDatabase(config, {
    failFast: { callTimeoutMs: config.api.dbTimeoutMs, probeEveryMs: 1000 },
    onRead: (seconds) => metrics.observeNeo4jRead(seconds),
  });
}

/**
 * Starts the API: refuses (MIGRATIONS_PENDING, naming them) on a database with pending
 * migrations, and (DATABASE_UNAVAILABLE) when Neo4j does not answer.
 */
export async function startServer(
  config: Config,
  options: StartServerOptions,
  given?: Database,
): Promise<StartedServer> {
  const logger = options.logger ?? silentLogger;
  const metrics = new ServerMetrics();
  const db = given ?? openServingDatabase(config, metrics);
  try {
    await db.ping();
    const migrations = { dir: options.migrationsDir, chain: options.migrationChain };
    await new MigrationRunner(db, migrations).assertUpToDate();
    const model = options.modelDir ? loadServingModel(options.modelDir) : undefined;
    if (config.api.keys.length === 0) {
      logger.warn(
        'No API keys configured (KGC_API_KEYS): anonymous reads are allowed and every mutation is refused.',
      );
    }
    const running = await listen(
      {
        db,
        model: () => model,
        api: config.api,
        logger,
        metrics,
        readiness: new ReadinessCheck(db, migrations, () => model),
      },
      config.http.host,
      config.http.port,
    );
    return {
      ...running,
      db,
      metrics,
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
