import path from 'node:path';
import { Command } from 'commander';
import { Config, loadConfig } from '../../config';
import { edgesPresent, localNeo4jFromConfig } from '../../graph';
import type { Database } from '../../graph';
import { getActiveVersion } from '../../graph/registry';
import {
  acceptPrediction,
  countRecovered,
  demoCurlCommand,
  DEMO_RELATIONS,
  demoSamplePerson,
  demoWorld,
  sampleQuestion,
  SAMPLE_QUERY,
  writeDemoGraph,
  writeDemoLabels,
  writeDemoKey,
} from '../../demo';
import type { DemoPrediction } from '../../demo';
import { ingestFile } from '../../ingest';
import { runRetrainJob } from '../../jobs';
import type { RetrainResult } from '../../jobs';
import { openModelStore } from '../../model';
import { createApiKey } from '../../server/api-keys';
import { silentLogger } from '../../server/logger';
import { startServer } from '../../server/start-server';
import type { CliOutput } from '../cli-output';
import { MIGRATIONS_DIR, openMigratedDatabase } from '../migrated-database';
import { ingestProgress } from '../progress/ingest-progress';
import { trainingProgress } from '../progress/training-progress';
import { integerOption } from './command-args';

interface DemoOptions {
  epochs: number;
  serve: boolean;
  json?: boolean;
}

/** What `--json` prints last. */
interface DemoSummary {
  heldOut: number;
  recoveredTop10: number;
  recoveredTop1: number;
  modelVersion: string | null;
  mrr: number | null;
  promoted: boolean;
  candidateMrr: number | null;
  activeMrr: number | null;
  accepted: { head: string; relation: string; tail: string } | null;
  /** The sample question's answers (typed: all of the relation's range). */
  sample: DemoPrediction[];
  url: string;
}

const mrr = (value: number | null | undefined) => (value == null ? 'n/a' : value.toFixed(3));

/**
 * The product's loop on a generated graph: ingest it (some derivable edges held out), train
 * version 1 through the retraining job, serve it, ask missingLinks, accept the top answer as an
 * admin (it is written back with its provenance), retrain (version 2 meets the promotion gate),
 * and serve the active version, counting the held-out edges it recovers.
 */
export function demoCommand(out: CliOutput): Command {
  return new Command('demo')
    .description(
      'Run the whole loop on a generated graph: ingest, train, serve, write back a prediction, retrain through the gate',
    )
    .option(
      '--epochs <n>',
      'training epochs per version (early stopping may end sooner)',
      integerOption('--epochs', { min: 1 }),
      100,
    )
    .option('--no-serve', 'exit after the steps instead of serving until Ctrl-C')
    .option('--json', 'print a JSON summary as the last line')
    .action(async (options: DemoOptions) => {
      const config = loadConfig();
      if (config.neo4j.kind === 'local') await localNeo4jFromConfig(config, out.info).start();
      const db = await openMigratedDatabase(config, out.info);
      try {
        await runDemo(db, config, options, out);
      } finally {
        await db.close();
      }
    });
}

async function runDemo(
  db: Database,
  config: Config,
  options: DemoOptions,
  out: CliOutput,
): Promise<void> {
  const world = demoWorld();
  const file = writeDemoGraph(path.join(config.stateDir, 'demo'), world);
  const progress = ingestProgress();
  const ingested = await ingestFile(db, { file, onProgress: (p) => progress.report(p) }).finally(
    () => progress.stop(),
  );
  const labelled = await ingestFile(db, {
    file: writeDemoLabels(path.join(config.stateDir, 'demo'), world),
    labels: true,
  });
  out.info(
    `1. Ingested ${ingested.triples} demo triples (${ingested.written} new, ${ingested.alreadyPresent} already there); ` +
      `${world.heldOut.length} citizenships the graph implies are held out of it; ` +
      `${labelled.labelled} entities labelled (Person, City, Country, Company).`,
  );

  const store = openModelStore(config.lifecycle);
  const scope = config.lifecycle.registryScope;
  const job = (trigger: string, force: boolean): Promise<RetrainResult> => {
    const training = trainingProgress(options.epochs);
    return runRetrainJob(db, config, {
      trigger,
      force,
      store,
      scope,
      filter: { relations: DEMO_RELATIONS },
      overrides: { epochs: options.epochs, evalEvery: 5, patience: 4 },
      onProgress: (event) => training.report(event),
    }).finally(() => training.stop());
  };
  const existing = await getActiveVersion(db, scope);
  if (existing) {
    out.info(`2. Version ${existing.version} is active already (an earlier demo): reusing it.`);
  } else {
    const first = await job('demo', true);
    out.info(
      `2. Trained version ${first.version} through the retraining job: held-out test MRR ${mrr(first.candidateMrr)}; promoted.`,
    );
  }

  // An admin key for this process only: the demo accepts a prediction as an admin would.
  const admin = createApiKey('demo-admin', 'admin');
  // A reader key for the printed curl: it sends what the server asks for, with no admin rights.
  const reader = createApiKey('demo-reader', 'reader');
  const serveConfig = { ...config, api: { ...config.api, keys: [...config.api.keys] } };
  const demoKeys = [admin.entry, reader.entry].join(',');
  serveConfig.api.keys.push(...loadConfig({ KGC_API_KEYS: demoKeys }).api.keys);
  const server = await startServer(serveConfig, {
    migrationsDir: MIGRATIONS_DIR,
    follow: { store, scope, pollMs: config.lifecycle.modelPollSeconds * 1000 },
    logger: silentLogger,
  });
  try {
    const sample = { entity: demoSamplePerson(world), relation: 'citizen_of' };
    const answer = await sampleQuestion(server.url, sample.entity, sample.relation, admin.key);
    out.info(`3. Serving on ${server.url}. missingLinks(${JSON.stringify(sample)}) ->`);
    out.info(`   ${JSON.stringify(answer.data?.missingLinks ?? answer.errors)}`);

    const top = answer.data?.missingLinks[0];
    let accepted: DemoSummary['accepted'] = null;
    if (top) {
      accepted = { head: sample.entity, relation: sample.relation, tail: top.entity.id };
      const result = await acceptPrediction(server.url, accepted, admin.key);
      out.info(
        `4. Accepted the top answer as an admin: ${JSON.stringify(result.data?.acceptPrediction ?? result.errors)}`,
      );
    } else {
      out.info('4. Nothing to accept: every candidate is already in the graph or rejected.');
    }

    const second = await job('demo', false);
    out.info(
      `5. Retrained: version ${second.version} scored ${mrr(second.candidateMrr)} against the active ` +
        `version's ${mrr(second.activeMrr)} on the same held-out edges, each as it serves: ` +
        (second.promoted ? 'promoted.' : 'not promoted (the active version stays).'),
    );

    await server.follower?.poll();
    const serving = server.follower?.current();
    const present = await edgesPresent(db, world.heldOut);
    const presentKeys = new Set(
      world.heldOut.filter((_, i) => present[i]).map((e) => e.join('\u0000')),
    );
    const recovered = await countRecovered(
      server.url,
      world.heldOut,
      (edge) => presentKeys.has(edge.join('\u0000')),
      admin.key,
    );
    const activeMrr = second.promoted ? second.candidateMrr : second.activeMrr;
    out.info(
      `6. Serving version ${serving?.version ?? 'none'}: of the ${world.heldOut.length} held-out citizenships ` +
        `it ranks ${recovered.top10} in its top 10 and ${recovered.top1} first (accepted ones count as found).`,
    );
    const summary: DemoSummary = {
      heldOut: world.heldOut.length,
      recoveredTop10: recovered.top10,
      recoveredTop1: recovered.top1,
      modelVersion: serving?.version ?? null,
      mrr: activeMrr,
      promoted: second.promoted,
      candidateMrr: second.candidateMrr,
      activeMrr: second.activeMrr,
      accepted,
      sample: answer.data?.missingLinks ?? [],
      url: server.url,
    };
    if (options.serve) {
      const keyFile = writeDemoKey(config.stateDir, reader.key);
      const body = { query: SAMPLE_QUERY, variables: sample };
      out.info(`Try it (the demo's reader key is in ${keyFile}):`);
      out.info(`  ${demoCurlCommand(server.url, keyFile, body)}`);
      out.info(
        'Serving until Ctrl-C (this demo process only: `npx kgc serve` serves the same registry); `npx kgc neo4j stop` stops Neo4j.',
      );
      if (options.json) out.info(JSON.stringify(summary));
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    } else if (options.json) {
      out.info(JSON.stringify(summary));
    }
  } finally {
    await server.stop();
  }
}
