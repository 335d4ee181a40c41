/** What the freshness programs share: held-out entities' edges in model ids, percentiles. */
import type { Native } from '../../src/model/native-engine';
import type { Named } from './inductive-split';

/** Each held-out entity's ingested edges in the model's ids (edges it cannot use dropped). */
export function foldInEdges(model: Native.NeptuneModel, heldOut: string[], ingested: Named[]) {
  const entity = new Map(model.entities.map((x, i) => [x, i]));
  const relation = new Map(model.relations.map((x, i) => [x, i]));
  const edges = new Map<string, Native.FoldInEdge[]>(heldOut.map((x) => [x, []]));
  for (const [h, r, t] of ingested) {
    const rel = relation.get(r);
    if (rel === undefined) continue;
    if (edges.has(h) && entity.has(t)) {
      edges.get(h)!.push({ relation: rel, other: entity.get(t)!, outgoing: true });
    }
    if (edges.has(t) && entity.has(h)) {
      edges.get(t)!.push({ relation: rel, other: entity.get(h)!, outgoing: false });
    }
  }
  return [...edges].filter(([, list]) => list.length > 0);
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}
