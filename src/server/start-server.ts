import 'reflect-metadata';
import type { Config } from '../config';
import { Database, MigrationRunner, openDatabase } from '../graph';
import { loadServingModel } from '../model';
import { StalenessTracker } from '../resolvers';
import type { FoldInService } from '../model';
import { ApproxIndexBuilder } from './approx-index-builder';
import { foldInService } from './fold-in';
import { listen, RunningServer } from './http-server';
import { Logger, silentLogger } from './logger';
import { ServerMetrics } from './metrics';
import { modelFallbackMetrics } from './model-fallback-metrics';
import { suggestionsMetrics } from './suggestions-metrics';
import { FollowOptions, ModelFollower } from './model-follower';
import { ReadinessCheck } from './readiness';
import { stalenessMetrics } from './staleness-metrics';
import { StartUpWork } from './start-up-work';
import { warmUpServingPath } from './warm-up';
import type { InternalQuery } from './graphql-context';

export interface StartServerOptions {
  migrationsDir: string;
  /** The migration chain to check; tests use their own. */
  migrationChain?: string;
  /** Pin this model directory (a `kgc train --out` folder or a version) instead of following. */
  modelDir?: string;
  /** Serve the registry's active version and follow promotions (ignored with `modelDir`). */
  follow?: FollowOptions;
  logger?: Logger;
}

export type StartedServer = RunningServer & {
  db: Database;
  metrics: ServerMetrics;
  /** Present when the server follows the registry. */
  follower?: ModelFollower;
  /** New entities' fold-in; `foldedInCount()` is the active version's folded entities. */
  foldIn: FoldInService;
  /** The served version's approximate top-k index (KGC_TOPK_INDEX=hnsw); `settled()` waits. */
  indexer: ApproxIndexBuilder;
  /**
   * Settles when the start-up work /readyz waits for has finished (warm-up.ts: the API's reads
   * planned and run, the GraphQL path's first queries; the entities the version lacks folded
   * in; the approximate index built); failures are logged, never thrown.
   */
  warmedUp: Promise<void>;
};

/**
 * The API's database: fails fast while Neo4j is away (no retry window per request: one attempt,
 * a connection within a second; clients retry), and reports read latency.
 */
export function openServingDatabase(config: Config, metrics: ServerMetrics): Database {
  const client = {
    maxRetrySeconds: 0,
    connectTimeoutMs: Math.min(config.client.connectTimeoutMs, 1000),
  };
  return openDatabase(
    { ...config, client },
    {
      failFast: { callTimeoutMs: config.api.dbTimeoutMs, probeEveryMs: 1000 },
      onRead: (seconds) => metrics.observeNeo4jRead(seconds),
    },
  );
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
  // Set once the start-up work waits for the server to listen: a failed start ends that wait.
  let notListening: (error: unknown) => void = () => undefined;
  try {
    await db.ping();
    const migrations = { dir: options.migrationsDir, chain: options.migrationChain };
    await new MigrationRunner(db, migrations).assertUpToDate();
    const pinned = options.modelDir ? await loadServingModel(options.modelDir) : undefined;
    const indexer = new ApproxIndexBuilder(config.topKIndex, logger);
    if (pinned) indexer.index(pinned);
    let follower: ModelFollower | undefined;
    if (!pinned && options.follow) {
      const fallbackMetrics = modelFallbackMetrics(metrics.registry, () => follower?.fallback());
      follower = new ModelFollower(db, options.follow, logger, {
        onSwap: (m) => {
          metrics.setModelVersion(m.version);
          indexer.index(m);
        },
        ...fallbackMetrics,
      });
    }
    await follower?.start();
    const foldIn = foldInService(db, config.foldIn, () => pinned ?? follower?.current(), logger);
    foldIn.start();
    const model = () => foldIn.current();
    metrics.setModelVersion(model()?.version);
    const staleness = new StalenessTracker(db, {
      foldedIn: () => foldIn.foldedInCount(),
      heldBack: () => foldIn.heldBackCount(),
      overCapacity: () => foldIn.overCapacityCount(),
    });
    // Started before the server listens: /readyz never says ready before this work is done
    // (or has run past its bound).
    const startUp = new StartUpWork(config.readyMaxWaitMs, logger);
    let listening: (query: InternalQuery) => void = () => undefined;
    const served = new Promise<InternalQuery>((resolve, reject) => {
      listening = resolve;
      notListening = reject;
    });
    served.catch(() => undefined);
    startUp.add('serving path', (signal) => warmUpServingPath(db, model, served, logger, signal));
    if (config.foldIn.enabled) startUp.add('fold-in', () => foldIn.catchUp());
    if (config.topKIndex.kind !== 'exact')
      startUp.add('approximate index', () => indexer.settled());
    stalenessMetrics(metrics.registry, model, staleness);
    suggestionsMetrics(metrics.registry, model);
    if (config.api.keys.length === 0) {
      logger.warn(
        'No API keys configured (KGC_API_KEYS): anonymous reads are allowed and every mutation is refused.',
      );
    }
    const running = await listen(
      {
        db,
        model,
        api: config.api,
        logger,
        registryScope: options.follow?.scope ?? config.lifecycle.registryScope,
        metrics,
        readiness: new ReadinessCheck(
          db,
          migrations,
          model,
          () => follower?.fallback(),
          () => startUp.waitingFor(),
        ),
        http: config.http,
        staleness,
        foldIn,
      },
      config.http.host,
      config.http.port,
    );
    listening(running.query);
    const warmedUp = startUp.settled();
    return {
      ...running,
      db,
      metrics,
      follower,
      foldIn,
      indexer,
      warmedUp,
      stop: async (drainMs?: number) => {
        startUp.stop();
        await indexer.stop();
        await foldIn.stop();
        await warmedUp;
        await follower?.stop();
        await running.stop(drainMs);
        await db.close();
      },
    };
  } catch (error) {
    notListening(error);
    await db.close();
    throw error;
  }
}
