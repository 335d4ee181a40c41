import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../config';
import { localNeo4jFromConfig, MigrationRunner, openDatabase } from '../../graph';
import {
  DEMO_RELATIONS,
  demoSamplePerson,
  ingestFile,
  logProgress,
  writeDemoGraph,
} from '../../ingest';
import { trainFromGraph } from '../../jobs/train-from-graph';
import { startServer } from '../../server/start-server';
import type { CliOutput } from '../cli-output';
import { trainingProgressReporter } from '../training-progress';
import { parseCount } from './command-args';
import { MIGRATIONS_DIR } from '../migrated-database';

const SAMPLE_QUERY = `query Demo($entity: String!, $relation: String!) {
  missingLinks(entity: $entity, relation: $relation, k: 3) { entity { id } rank probability }
}`;

interface DemoOptions {
  epochs?: string;
  serve: boolean;
}

/**
 * The product's main job on the embedded default: a local Neo4j, a small graph ingested into
 * it, a model trained from the graph, and the GraphQL API serving missingLinks.
 */
export function demoCommand(out: CliOutput): Command {
  return new Command('demo')
    .description(
      'Run the demo: local Neo4j (unless NEO4J_URI is set), ingest a small graph, train, serve missingLinks',
    )
    .option('--epochs <n>', 'training epochs (early stopping may end sooner)', '100')
    .option('--no-serve', 'exit after the sample query instead of serving until Ctrl-C')
    .action(async (options: DemoOptions) => {
      const config = loadConfig();
      const epochs = parseCount(options.epochs, '--epochs', 1) ?? 100;
      if (config.neo4j.kind === 'local') await localNeo4jFromConfig(config, out.info).start();
      const db = openDatabase(config);
      let stopServer: (() => Promise<void>) | undefined;
      try {
        await db.ping();
        const applied = await new MigrationRunner(db, {
          dir: MIGRATIONS_DIR,
          log: out.info,
        }).migrate();
        out.info(
          `Migrations: ${applied.length} applied now, database up to date (${db.target.uri}).`,
        );

        const file = writeDemoGraph(path.join(config.stateDir, 'demo'));
        const ingested = await ingestFile(db, { file, progress: logProgress(out.info) });
        out.info(
          `Ingested ${ingested.triples} demo triples (${ingested.written} new, ${ingested.alreadyPresent} already there).`,
        );

        const modelDir = path.join(config.stateDir, 'models', 'demo');
        out.info(
          `Training NePTuNe on the demo graph (${epochs} epochs at most, early stopping) ...`,
        );
        const request = { preset: 'default', overrides: { epochs, evalEvery: 10, patience: 5 } };
        const trained = await trainFromGraph(db, request, {
          outDir: modelDir,
          filter: { relations: DEMO_RELATIONS },
          split: { seed: 1, validFraction: 0.1, testFraction: 0.1 },
          onProgress: trainingProgressReporter(epochs),
        });
        out.info(
          `Trained on ${trained.triples} triples, ${trained.entities} entities: ${trained.epochsRun} epochs ` +
            `in ${trained.seconds.toFixed(1)} s, validation MRR ${trained.valid?.overall.mrr.toFixed(3) ?? 'n/a'}.`,
        );

        const server = await startServer(config, { migrationsDir: MIGRATIONS_DIR, modelDir }, db);
        stopServer = server.stop;
        const variables = { entity: demoSamplePerson(), relation: 'citizen_of' };
        const response = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: SAMPLE_QUERY, variables }),
        });
        out.info(
          `GraphQL API on ${server.url}. Sample: missingLinks(${JSON.stringify(variables)}) ->`,
        );
        out.info(JSON.stringify(await response.json()));
        if (!options.serve) return;
        out.info(
          `Try it: curl -s ${server.url} -H 'content-type: application/json' -d '${JSON.stringify({ query: SAMPLE_QUERY, variables })}'`,
        );
        out.info('Serving until Ctrl-C; `npx kgc neo4j stop` stops Neo4j afterwards.');
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
      } finally {
        if (stopServer) await stopServer();
        else await db.close();
      }
    });
}
