import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import { ModelStore } from '../../model';
import { createLogger } from '../../server/logger';
import { startServer } from '../../server/start-server';
import type { CliOutput } from '../cli-output';
import { MIGRATIONS_DIR } from '../migrated-database';

/**
 * `kgc serve`: the API, logging JSON lines to stdout (pino). Without --model (or KGC_MODEL_DIR)
 * it serves the registry's active version and follows promotions and rollbacks.
 */
export function serveCommand(_out: CliOutput): Command {
  return new Command('serve')
    .description(
      'Start the GraphQL API: serves the active model version and follows promotions (or --model pins one)',
    )
    .option('--port <port>', 'HTTP port (default KGC_HTTP_PORT or 4000)')
    .option('--model <dir>', 'pin this model directory (default KGC_MODEL_DIR; else follow)')
    .action(async (options: { port?: string; model?: string }) => {
      const config = loadConfig();
      if (options.port !== undefined) {
        const port = Number(options.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          throw new KgcError(
            ErrorCode.BAD_USER_INPUT,
            `--port must be an integer from 0 to 65535, got "${options.port}".`,
          );
        }
        config.http.port = port;
      }
      const modelDir = options.model ?? config.modelDir;
      const logger = createLogger(config.logLevel);
      const server = await startServer(config, {
        migrationsDir: MIGRATIONS_DIR,
        modelDir: modelDir ? path.resolve(modelDir) : undefined,
        follow: {
          store: new ModelStore(config.lifecycle.modelStore),
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
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      logger.info('shutting down: no new connections, draining in-flight requests');
      await server.stop();
      logger.info('stopped');
      logger.flush();
    });
}
