import 'reflect-metadata';
import { Command } from 'commander';
import { consoleOutput, formatError } from './cli-output';
import { loadEnvFile } from './load-env-file';
import { apikeyCommand } from './commands/apikey.command';
import { demoCommand } from './commands/demo.command';
import { exportCommand } from './commands/export.command';
import { ingestCommand } from './commands/ingest.command';
import { evaluateCommand } from './commands/evaluate.command';
import { trainCommand } from './commands/train.command';
import { migrateCommand } from './commands/migrate.command';
import { modelsCommand } from './commands/models.command';
import { neo4jCommand } from './commands/neo4j.command';
import { retrainCommand } from './commands/retrain.command';
import { schemaCommand } from './commands/schema.command';
import { serveCommand } from './commands/serve.command';
import { suggestCommand } from './commands/suggest.command';
import { suggestionsCommand } from './commands/suggestions.command';
import { SERVICE_VERSION } from '../server/service-version';
import { workerCommand } from './commands/worker.command';

export function buildProgram(): Command {
  const out = consoleOutput;
  return new Command('kgc')
    .description('Knowledge-completion server: NePTuNe link prediction over a Neo4j graph')
    .version(SERVICE_VERSION)
    .addCommand(neo4jCommand(out))
    .addCommand(migrateCommand(out))
    .addCommand(serveCommand(out))
    .addCommand(schemaCommand(out))
    .addCommand(trainCommand(out))
    .addCommand(evaluateCommand(out))
    .addCommand(demoCommand(out))
    .addCommand(ingestCommand(out))
    .addCommand(exportCommand(out))
    .addCommand(apikeyCommand(out))
    .addCommand(modelsCommand(out))
    .addCommand(workerCommand())
    .addCommand(retrainCommand(out))
    .addCommand(suggestCommand(out))
    .addCommand(suggestionsCommand(out));
}

/** The only place that ends the process: errors become one line and a non-zero exit. */
export async function main(argv: string[]): Promise<void> {
  try {
    loadEnvFile();
    await buildProgram().parseAsync(argv);
  } catch (error) {
    consoleOutput.error(formatError(error));
    process.exit(1);
  }
}

if (require.main === module) void main(process.argv);
