/**
 * The longest event-loop stall of each of the job's in-process steps on a synthetic graph
 * (issue 37 item 4): the lease is renewed by a timer, so no stretch without a turn may come near
 * the lease's margin (40 s at KGC_JOB_LEASE_SECONDS=60). No Neo4j: the export's streaming yields
 * on every network read; what follows it (vocabulary sorts, canonical order) is measured here.
 *
 *   npx tsx bench/lifecycle/event-loop-stalls.ts [--edges 20000000] [--entities 2000000] [--relations 500]
 *
 * Prints one line per step: wall seconds and the longest gap between two ticks of a 5 ms timer.
 * With --relations large enough that entities^2 * relations > 2^53, canonical takes the
 * comparator sort (the slow path).
 */
import { EventLoopTurns } from '../../src/event-loop-turns';
import { canonical, sortedKeys, stableSplit, tripleKeysPaced } from '../../src/export';
import type { DenseGraph } from '../../src/export';
import { seededRandom } from '../../src/seeded-random';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function measure<T>(step: string, work: () => Promise<T> | T): Promise<T> {
  let last = performance.now();
  let worst = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  try {
    const result = await work();
    // One more tick after the work, so a stall at its very end counts.
    await new Promise((resolve) => setTimeout(resolve, 10));
    return result;
  } finally {
    clearInterval(ticker);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${step.padEnd(28)} ${seconds.toFixed(2).padStart(8)} s   longest stall ${(worst / 1000).toFixed(2)} s`,
    );
  }
}

async function main(): Promise<void> {
  const edges = arg('edges', 20_000_000);
  const entities = arg('entities', 2_000_000);
  const relations = arg('relations', 500);
  console.log(`synthetic graph: ${edges} edges, ${entities} entities, ${relations} relations`);
  const random = seededRandom(11);
  const h = new Int32Array(edges);
  const r = new Int32Array(edges);
  const t = new Int32Array(edges);
  for (let i = 0; i < edges; i++) {
    h[i] = Math.floor(random() * entities);
    r[i] = Math.floor(random() * relations);
    t[i] = Math.floor(random() * entities);
  }
  const names = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`);
  const entityNames = names(entities, 'http://example.org/entity/');
  const relationNames = names(relations, 'relation_');
  const sortedNames = await measure('export: vocabulary sort', () =>
    [...entityNames].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  const graph: DenseGraph = await measure('export: canonical order', () =>
    canonical(sortedNames, relationNames, h, r, t),
  );
  const turns = new EventLoopTurns();
  const keys = await measure('split: triple keys (paced)', () => tripleKeysPaced(graph, turns));
  await measure('split: sorted keys', () => sortedKeys(keys.keys));
  const split = await measure('split: stable split', () => stableSplit(graph, keys));
  await measure('write: sorted train keys', () => sortedKeys(keys.keys, split.train));
}

void main();
