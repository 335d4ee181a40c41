import { Command } from 'commander';
import { loadConfig } from '../../config';
import { MigrationLock, MigrationRunner, openDatabase } from '../../graph';
import type { CliOutput } from '../cli-output';
import { MIGRATIONS_DIR } from '../migrated-database';

interface MigrateOptions {
  status?: boolean;
  unlock?: boolean;
  json?: boolean;
}

export function migrateCommand(out: CliOutput): Command {
  return new Command('migrate')
    .description('Apply pending Neo4j schema migrations from migrations/ (each once, in order)')
    .option('--status', 'list applied and pending migrations; change nothing')
    .option('--unlock', 'remove a migration lock left by a runner that died')
    .option('--json', 'print the result as JSON')
    .action(async (options: MigrateOptions) => {
      const db = openDatabase(loadConfig());
      try {
        const runner = new MigrationRunner(db, { dir: MIGRATIONS_DIR, log: out.info });
        if (options.unlock) {
          const removed = await MigrationLock.forceUnlock(db, 'kgc');
          out.info(removed > 0 ? 'Migration lock removed.' : 'No migration lock was held.');
        } else if (options.status) {
          const status = await runner.status();
          if (options.json) out.info(JSON.stringify(status));
          else
            for (const entry of status)
              out.info(
                `${entry.state.padEnd(8)} ${entry.file}${entry.appliedAt ? `  (${entry.appliedAt})` : ''}`,
              );
        } else {
          // Stop between statements on a signal (compose's stop), releasing the lock.
          const stop = (signal: NodeJS.Signals) => runner.stop(signal);
          process.once('SIGTERM', stop);
          process.once('SIGINT', stop);
          const applied = await runner.migrate().finally(() => {
            process.off('SIGTERM', stop);
            process.off('SIGINT', stop);
          });
          if (options.json) out.info(JSON.stringify({ applied: applied.map((m) => m.file) }));
          else
            out.info(
              applied.length === 0
                ? 'Database is up to date.'
                : `Applied ${applied.length} migration(s).`,
            );
        }
      } finally {
        await db.close();
      }
    });
}
