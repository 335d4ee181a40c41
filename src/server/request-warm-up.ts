import { coprimeStride } from '../coprime-stride';
import type { ServingModel } from '../model';
import type { InternalQuery } from './graphql-context';

/** Every scalar field a client may ask of a prediction (reasons are warmed by their own read). */
const WARM_UP_QUERY = `query WarmUp($entity: String!, $relation: String!, $direction: Direction!) {
  missingLinks(entity: $entity, relation: $relation, k: 10, direction: $direction) {
    entity { id } rank logit probability typeConsistent modelVersion foldedIn
  }
}`;

interface RequestWarmUpOptions {
  /** Queries sent in all (fewer if the budget runs out first). */
  queries: number;
  /** Queries in flight at once: concurrent requests share a read and a scoring call. */
  concurrency: number;
  budgetMs: number;
  /** Stops sending (the server is stopping). */
  signal?: AbortSignal;
}

/**
 * Sends missingLinks queries through the server's own GraphQL pipeline before it says ready
 * (pairs of the version's entities and relations, spread over both): the first requests of a
 * fresh process otherwise run graphql-js, the resolvers, the batcher and the Bolt driver before
 * V8 has compiled them, several times slower than later ones. The answers are dropped; the
 * server's Neo4j-read and scoring histograms count these queries like any others.
 */
export async function warmUpRequests(
  query: InternalQuery,
  model: ServingModel | undefined,
  options: RequestWarmUpOptions,
): Promise<{ queries: number }> {
  const entities = model?.scorer.entities ?? [];
  const relations = model?.scorer.relations ?? [];
  if (entities.length === 0 || relations.length === 0) return { queries: 0 };
  const deadline = Date.now() + options.budgetMs;
  const stride = coprimeStride(entities.length);
  let next = 0;
  const worker = async () => {
    while (next < options.queries && Date.now() < deadline && !options.signal?.aborted) {
      const i = next++;
      await query(WARM_UP_QUERY, {
        entity: entities[(i * stride) % entities.length],
        relation: relations[i % relations.length],
        direction: i % 4 === 3 ? 'HEAD' : 'TAIL',
      });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { queries: next };
}
