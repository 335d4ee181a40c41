import { performance } from 'node:perf_hooks';
import { knownAnswersBatch } from '../../../src/graph';
import type { Database } from '../../../src/graph';
import { summarize } from './load';
import type { Pair } from './workload';

export interface ReadFloor {
  name: string;
  calls: number;
  mean: number;
  p50: number;
  p99: number;
}

/**
 * One at a time from the bench process (its own driver, same session-per-read pattern as the
 * API): a `RETURN 1` read transaction (the floor of any read) and the API's known-answers read
 * for one query and for 64, to tell the transaction's fixed cost from the query's own.
 */
export async function measureReadFloor(
  db: Database,
  pairs: Pair[],
  random: () => number,
  calls: number,
): Promise<ReadFloor[]> {
  const pick = () => {
    const p = pairs[Math.floor(random() * pairs.length)] as Pair;
    return { entity: p.entity, relation: p.relation, direction: 'tail' as const };
  };
  const time = async (name: string, work: () => Promise<unknown>): Promise<ReadFloor> => {
    for (let i = 0; i < 20; i++) await work();
    const ms: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      await work();
      ms.push(performance.now() - started);
    }
    const s = summarize(ms);
    return { name, calls, mean: s.mean, p50: s.p50, p99: s.p99 };
  };
  return [
    await time('read tx RETURN 1', () => db.read((tx) => tx.run('RETURN 1'))),
    await time('known-answers read, 1 query', () => knownAnswersBatch(db, [pick()])),
    await time('known-answers read, 64 queries', () =>
      knownAnswersBatch(
        db,
        Array.from({ length: 64 }, () => pick()),
      ),
    ),
  ];
}
