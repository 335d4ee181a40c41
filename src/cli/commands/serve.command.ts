import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../config';
import { openModelStore } from '../../model';
import { createServerLogger } from '../../server/logger';
import { startServer } from '../../server/start-server';
import type { CliOutput } from '../cli-output';
import { integerOption } from './command-args';
import { MIGRATIONS_DIR, openMigratedDatabase } from '../migrated-database';
import { checkModelStore } from './model-store-check';

/**
 * `kgc serve`: the API, logging JSON lines to stdout (pino). Without --model (or KGC_MODEL_DIR)
 * it serves the registry's active version and follows promotions and rollbacks.
 */
export function serveCommand(_out: CliOutput): Command {
  return new Command('serve')
    .description(
      'Start the GraphQL API: serves the active model version and follows promotions (or --model pins one)',
    )
    .option(
      '--port <port>',
      'HTTP port (default KGC_HTTP_PORT or 4000)',
      integerOption('--port', { min: 0, max: 65535 }),
    )
    .option('--model <dir>', 'pin this model directory (default KGC_MODEL_DIR; else follow)')
    .action(async (options: { port?: number; model?: string }) => {
      const config = loadConfig();
      if (options.port !== undefined) config.http.port = options.port;
      const modelDir = options.model ?? config.modelDir;
      const logger = createServerLogger(config.logLevel);
      // The local default is ours to migrate; a server named by NEO4J_URI is refused below.
      if (config.neo4j.kind === 'local') {
        await (await openMigratedDatabase(config, (line) => logger.info(line))).close();
      }
      const store = openModelStore(config.lifecycle);
      await checkModelStore(store, (error) =>
        logger.error(
          { err: error },
          'the model store is unavailable: serving what this machine has cached until it is back',
        ),
      );
      const server = await startServer(config, {
        migrationsDir: MIGRATIONS_DIR,
        modelDir: modelDir ? path.resolve(modelDir) : undefined,
        follow: {
          store,
          scope: config.lifecycle.registryScope,
          pollMs: config.lifecycle.modelPollSeconds * 1000,
        },
        logger,
      });
      const base = server.url.replace(/\/graphql$/, '');
      logger.info(
        {
          url: server.url,
          health: `${base}/healthz`,
          ready: `${base}/readyz`,
          metrics: `${base}/metrics`,
          model: modelDir ? `pinned: ${path.basename(modelDir)}` : 'following the registry',
        },
        'GraphQL API listening',
      );
      // The handlers stay installed through the drain: a repeated signal must not kill the
      // process (the default action) while requests are still being answered.
      let stopping = false;
      await new Promise<void>((resolve) => {
        const onSignal = (signal: NodeJS.Signals) => {
          if (stopping) logger.info({ signal }, 'already shutting down');
          stopping = true;
          resolve();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
      logger.info('shutting down: no new connections, draining in-flight requests');
      await server.stop();
      logger.info('stopped');
      logger.flush();
    });
}
