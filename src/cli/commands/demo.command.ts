import { Command } from 'commander';
import { loadConfig } from '../../config';
import { localNeo4jFromConfig, MigrationRunner, openDatabase } from '../../graph';
import type { CliOutput } from '../cli-output';
import { MIGRATIONS_DIR } from './migrate.command';

/**
 * The product's main job on the embedded default. For now: bring up a migrated local Neo4j
 * (or use NEO4J_URI) and report it ready; ingest, training and serving join as they land.
 */
export function demoCommand(out: CliOutput): Command {
  return new Command('demo')
    .description(
      'Run the demo: start a local Neo4j (unless NEO4J_URI is set), migrate, report ready',
    )
    .action(async () => {
      const config = loadConfig();
      if (config.neo4j.kind === 'local') await localNeo4jFromConfig(config, out.info).start();
      const db = openDatabase(config);
      try {
        await db.ping();
        const applied = await new MigrationRunner(db, {
          dir: MIGRATIONS_DIR,
          log: out.info,
        }).migrate();
        out.info(`Migrations: ${applied.length} applied now, database up to date.`);
        out.info(`Ready: Neo4j at ${db.target.uri}, database "${db.databaseName}".`);
        out.info('Check it with `npx kgc neo4j status`; stop it with `npx kgc neo4j stop`.');
      } finally {
        await db.close();
      }
    });
}
