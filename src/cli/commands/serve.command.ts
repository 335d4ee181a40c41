import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import { createLogger } from '../../server/logger';
import { startServer } from '../../server/start-server';
import type { CliOutput } from '../cli-output';
import { MIGRATIONS_DIR } from '../migrated-database';

export function serveCommand(out: CliOutput): Command {
  return new Command('serve')
    .description('Start the GraphQL API (refuses to start while migrations are pending)')
    .option('--port <port>', 'HTTP port (default KGC_HTTP_PORT or 4000)')
    .option('--model <dir>', 'the model to serve (default KGC_MODEL_DIR)')
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
        logger,
      });
      if (!modelDir)
        out.info(
          'No model given (--model or KGC_MODEL_DIR): missingLinks will answer MODEL_NOT_READY.',
        );
      out.info(
        `GraphQL API on ${server.url} (health: ${server.url.replace(/graphql$/, 'healthz')})`,
      );
      await new Promise<void>((resolve) => {
        const shutdown = () => resolve();
        process.once('SIGINT', shutdown);
        process.once('SIGTERM', shutdown);
      });
      out.info('Shutting down: draining in-flight requests...');
      await server.stop();
      logger.flush();
    });
}
