import { warmUpKnownAnswers, warmUpReasonReads } from '../graph';
import type { Database } from '../graph';
import type { ServingModel } from '../model';
import { MAX_BATCH, REASONS_BATCH } from '../resolvers';
import type { InternalQuery } from './graphql-context';
import type { Logger } from './logger';
import { warmUpRequests } from './request-warm-up';

/** The in-process missingLinks queries of the warm-up (request-warm-up.ts). */
const REQUEST_WARM_UP = { queries: 2000, concurrency: 32, budgetMs: 10_000 };
/** The known-edges read's walk over the version's entities stops after this long. */
const KNOWN_EDGES_BUDGET_MS = 10_000;

/**
 * Makes the serving path fast before the server says ready. Neo4j plans the reasons reads
 * (seconds on a fresh server) and plans and runs the known-edges read that every missingLinks
 * waits for, over the version's entities (its code compiled, the graph in its page cache), each
 * once per list-size bucket its plans are cached by; then missingLinks queries go through the
 * server's own GraphQL pipeline, so V8 has compiled it too. Failures are logged and swallowed:
 * the first requests then pay instead.
 */
export async function warmUpServingPath(
  db: Database,
  model: () => ServingModel | undefined,
  query: Promise<InternalQuery>,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const entities = model()?.scorer.entities ?? [];
  await Promise.all([
    timed(
      logger,
      'reasons reads planned',
      'planning the reasons reads failed (the first request will)',
      () => warmUpReasonReads(db, REASONS_BATCH),
    ),
    timed(
      logger,
      'known-edges read warmed up',
      'warming up the known-edges read failed (the first requests will)',
      () =>
        warmUpKnownAnswers(db, entities, {
          budgetMs: KNOWN_EDGES_BUDGET_MS,
          longest: MAX_BATCH,
          signal,
        }),
    ),
  ]);
  await timed(
    logger,
    'missingLinks requests warmed up',
    'warming up the missingLinks requests failed (the first requests will)',
    async () => warmUpRequests(await query, model(), { ...REQUEST_WARM_UP, signal }),
  );
}

async function timed(
  logger: Logger,
  done: string,
  failed: string,
  work: () => Promise<unknown>,
): Promise<void> {
  const started = Date.now();
  try {
    const details = await work();
    logger.info(
      { ms: Date.now() - started, ...(typeof details === 'object' ? details : {}) },
      done,
    );
  } catch (error) {
    logger.warn({ err: error }, failed);
  }
}
