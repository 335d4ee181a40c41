import { reasonPathsBatch } from '../graph';
import type { Database, ReasonPairAnswer } from '../graph';
import type { Prediction } from '../schema/prediction.type';
import type { Reason } from '../schema/reason.type';
import { ConcurrencyGate } from './concurrency-gate';
import { asked, MAX_REASONS, pathReasons } from './reason-items';
import type { Asked } from './reason-items';
import { reasonsInMemory } from './reasons-in-memory';
import { rankSimilar, similarReason } from './similar-reasons';

/**
 * Reasons reads running at once, per process. A read that walks paths in Neo4j (models without
 * graph.bin) goes through hubs and holds its connection far longer than a known-edges read:
 * without a cap, a burst of them takes every connection of the driver's pool and the other
 * requests' reads time out waiting for one (bench/api/RESULTS.md, issue 38). The confirmation
 * read of in-memory reasons is cheap but shares the cap. Requests beyond it wait their turn.
 */
const REASONS_READS_AT_ONCE = 8;
const reasonsReads = new ConcurrencyGate(REASONS_READS_AT_ONCE);

/**
 * Reasons read from Neo4j directly (models without their version's graph: older versions and
 * model directories not made by the retrain job): rule paths walked in the graph, else the
 * nearest known edges of the relation.
 */
async function reasonsFromGraph(db: Database, items: readonly Asked[]): Promise<Reason[][]> {
  const answers: ReasonPairAnswer[] = await reasonPathsBatch(
    db,
    items.map((item) => item.pair),
  );
  const ranked = rankSimilar(
    items,
    items.map((_, i) => ((answers[i]?.paths.length ?? 0) > 0 ? [] : (answers[i]?.similar ?? []))),
  );
  return items.map((item, i) => {
    const paths = pathReasons(item, answers[i] as ReasonPairAnswer);
    if (paths.length > 0) return paths;
    return (ranked.get(i) ?? [])
      .slice(0, MAX_REASONS)
      .map((similar) => similarReason(item, similar));
  });
}

/**
 * The reasons of many predictions (all those of one request) with one graph read: searched in
 * the version's graph in memory and confirmed against Neo4j where the model has it, else
 * looked for in Neo4j (a request served by one model makes one read either way).
 */
export async function reasonsBatch(
  db: Database,
  predictions: readonly Prediction[],
): Promise<Reason[][]> {
  const items: (Asked | undefined)[] = predictions.map(asked);
  const present = items.filter((item): item is Asked => item !== undefined);
  // graph.bin has no rows for folded-in entities: their pairs are walked in Neo4j.
  const inGraphBin = (item: Asked) =>
    item.model.graph !== undefined &&
    !item.model.folded?.ids.has(item.pair.head) &&
    !item.model.folded?.ids.has(item.pair.tail);
  const inMemory = present.filter(inGraphBin);
  const fromGraph = present.filter((item) => !inGraphBin(item));
  const reasons = new Map<Asked, Reason[]>();
  const keep = (group: Asked[]) => (found: Reason[][]) =>
    group.forEach((item, i) => reasons.set(item, found[i] ?? []));
  await reasonsReads.run(() =>
    Promise.all([
      inMemory.length > 0 ? reasonsInMemory(db, inMemory).then(keep(inMemory)) : undefined,
      fromGraph.length > 0 ? reasonsFromGraph(db, fromGraph).then(keep(fromGraph)) : undefined,
    ]),
  );
  return items.map((item) => (item ? (reasons.get(item) ?? []) : []));
}
