import { coprimeStride } from '../../coprime-stride';
import type { Database } from '../database';
import { SUGGESTED_TYPE } from '../suggestions/suggested-type';
import { knownAnswersBatch } from './known-answers';
import { planSizes } from './plan-sizes';
import type { KnownAnswersQuery } from './known-answers';

/** Entities per warm-up read: about a busy server's batch. */
const WARM_UP_BATCH = 64;
/** Reads in flight at once during the walk. */
const WALKERS = 8;

/** Row i: a relation type of an edge out of `$ids[i]` and one of an edge into it (or none). */
const EDGE_TYPES = `
UNWIND range(0, size($ids) - 1) AS i
MATCH (x:Entity {id: $ids[i]})
RETURN i,
  COLLECT { MATCH (x)-[e]->(:Entity) WHERE type(e) <> $suggested RETURN type(e) LIMIT 1 } AS out,
  COLLECT { MATCH (x)<-[e]-(:Entity) WHERE type(e) <> $suggested RETURN type(e) LIMIT 1 } AS inc`;

/**
 * Runs the known-answers read before the API serves it. The first reads have Neo4j plan it,
 * once per size bucket of batches up to `longest` queries (plan-sizes.ts); the rest walk
 * `entities` (the serving version's, spread evenly) in batches, asking each for a relation it
 * has in both directions, so the read finds edges as clients' reads do: its code is compiled
 * and the nodes, edges and ids it touches are in Neo4j's page cache. Stops when the budget is
 * spent or `signal` aborts; returns how many entities were read.
 */
export async function warmUpKnownAnswers(
  db: Database,
  entities: readonly string[],
  options: { budgetMs: number; longest: number; signal?: AbortSignal },
): Promise<{ entities: number }> {
  const deadline = Date.now() + options.budgetMs;
  const nobody: KnownAnswersQuery = {
    entity: 'kgc:warm-up:nobody',
    relation: 'kgc_warm_up',
    direction: 'tail',
  };
  for (const size of planSizes(options.longest)) {
    await knownAnswersBatch(
      db,
      Array.from({ length: size }, () => nobody),
    );
  }
  const stride = coprimeStride(entities.length);
  let done = 0;
  const walk = async () => {
    while (done < entities.length && Date.now() < deadline && !options.signal?.aborted) {
      const ids: string[] = [];
      for (; ids.length < WARM_UP_BATCH && done < entities.length; done++) {
        ids.push(entities[(done * stride) % entities.length] as string);
      }
      const types = await db.readQuery(EDGE_TYPES, { ids, suggested: SUGGESTED_TYPE });
      const queries: KnownAnswersQuery[] = [];
      for (const record of types.records) {
        const entity = ids[Number(record.get('i'))] as string;
        const [out] = record.get('out') as string[];
        const [inc] = record.get('inc') as string[];
        if (out !== undefined) queries.push({ entity, relation: out, direction: 'tail' });
        if (inc !== undefined) queries.push({ entity, relation: inc, direction: 'head' });
      }
      await knownAnswersBatch(db, queries);
    }
  };
  // Several reads at once, as under load: the driver opens (and Neo4j sets up) the connections
  // a busy server uses, rather than the first burst of requests waiting for them.
  await Promise.all(Array.from({ length: WALKERS }, walk));
  return { entities: done };
}
