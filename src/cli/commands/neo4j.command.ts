import { Command } from 'commander';
import { loadConfig } from '../../config';
import { localNeo4jFromConfig } from '../../graph';
import type { CliOutput } from '../cli-output';

export function neo4jCommand(out: CliOutput): Command {
  const command = new Command('neo4j').description(
    'Manage the local Neo4j 5.26 server (jars from Maven Central; data in .kgc/neo4j/local)',
  );
  command
    .command('start')
    .description('Fetch Neo4j if needed, start it on 127.0.0.1 and wait until it answers a query')
    .action(async () => {
      const config = loadConfig();
      const target = await localNeo4jFromConfig(config, out.info).start();
      out.info(
        `Neo4j running: ${target.uri} (user ${target.user}; password in .kgc/neo4j/local/credentials.json)`,
      );
    });
  command
    .command('stop')
    .description('Stop the local Neo4j gracefully')
    .action(async () => {
      const stopped = await localNeo4jFromConfig(loadConfig(), out.info).stop();
      out.info(stopped ? 'Neo4j stopped.' : 'Neo4j was not running.');
    });
  command
    .command('status')
    .description('Report whether the local Neo4j runs and answers queries')
    .option('--json', 'print the status as JSON')
    .action(async (options: { json?: boolean }) => {
      const status = await localNeo4jFromConfig(loadConfig(), out.info).status();
      if (options.json) out.info(JSON.stringify(status));
      else if (!status.running) out.info(`Neo4j is not running (instance folder ${status.dir}).`);
      else
        out.info(
          `Neo4j is running: pid ${status.pid}, ${status.boltUri}, ` +
            (status.responsive ? 'answering queries.' : 'NOT answering queries yet.'),
        );
      if (!status.running || !status.responsive) process.exitCode = 3;
    });
  return command;
}
