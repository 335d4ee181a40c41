import { EventLoopTurns } from '../../../src/event-loop-turns';
import { canonical, tripleKeys, tripleKeysPaced } from '../../../src/export';
import type { DenseGraph } from '../../../src/export';
import { Database } from '../../../src/graph';
import { acquireLease } from '../../../src/graph/registry';
import { LeaseKeeper } from '../../../src/jobs/lease-keeper';
import { seededRandom } from '../../../src/seeded-random';
import { testDatabase, uniqueId } from '../../support/test-database';

jest.setTimeout(180_000);

// Seconds, not the minute of production: a renewal every 2 s, with 4 s to complete (a loaded
// test machine makes a Neo4j transaction take a second or more while the phase runs).
const TTL_SECONDS = 6;
const RENEW_MS = (TTL_SECONDS * 1000) / 3;
/** The long phase outlasts the lease. */
const PHASE_MS = TTL_SECONDS * 1000 + 2000;

/** A graph built in memory: hashing its keys is the split phase's longest loop. */
function bigGraph(edges: number): DenseGraph {
  const random = seededRandom(7);
  const n = 50_000;
  const id = () => Math.floor(random() * n);
  const h = Int32Array.from({ length: edges }, id);
  const r = Int32Array.from({ length: edges }, () => Math.floor(random() * 20));
  const t = Int32Array.from({ length: edges }, id);
  const names = (count: number, p: string) => Array.from({ length: count }, (_, i) => `${p}${i}`);
  return canonical(names(n, 'e'), names(20, 'r'), h, r, t);
}

describe('the lease during a long synchronous phase', () => {
  let db: Database;
  let graph: DenseGraph;
  beforeAll(() => {
    db = testDatabase();
    graph = bigGraph(200_000);
  });
  afterAll(async () => {
    await db.close();
  });

  it('keeps being renewed while the paced phase runs: nobody can take it', async () => {
    const scope = uniqueId('scope');
    let lost = '';
    const keeper = await LeaseKeeper.acquire(db, {
      scope,
      ttlSeconds: TTL_SECONDS,
      onLost: (why) => (lost = why),
    });
    // Another worker tries to take the lease, one attempt after another, while the phase runs.
    const taken: boolean[] = [];
    let running = true;
    const rival = (async () => {
      while (running) {
        const attempt = await acquireLease(db, { holder: 'rival', ttlSeconds: 60 }, scope);
        taken.push(attempt.acquired);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    })();
    const before = keeper.renewals;
    const started = performance.now();
    let rounds = 0;
    try {
      const turns = new EventLoopTurns();
      while (performance.now() - started < PHASE_MS) {
        await tripleKeysPaced(graph, turns);
        rounds++;
      }
    } finally {
      running = false;
    }
    const renewed = keeper.renewals - before;
    await rival;
    await keeper.release();
    expect(rounds).toBeGreaterThan(0);
    // Renewed every third of the time to live, all through the phase.
    expect(renewed).toBeGreaterThanOrEqual(Math.floor(PHASE_MS / RENEW_MS) - 1);
    expect(taken.length).toBeGreaterThan(2);
    expect(taken.filter(Boolean)).toEqual([]);
    expect(lost).toBe('');
  });

  it('is not renewed while the same loop runs without turns (what the turns prevent)', async () => {
    const scope = uniqueId('scope');
    const keeper = await LeaseKeeper.acquire(db, { scope, ttlSeconds: TTL_SECONDS });
    const before = keeper.renewals;
    const started = performance.now();
    while (performance.now() - started < 1.5 * RENEW_MS) tripleKeys(graph);
    // A renewal was due and did not even start: a phase this long past the lease's time to
    // live would lose it.
    expect(keeper.renewals).toBe(before);
    expect(performance.now() - started).toBeGreaterThan(RENEW_MS);
    await keeper.release();
  });
});
