/** What the freshness programs share: held-out entities' edges in model ids, percentiles. */
import { knownAnswers } from '../../src/model/fold-in/known-answers';
import type { Native } from '../../src/model/native-engine';
import type { GraphIndex } from '../../src/model/rules/graph-index';
import type { Named } from './inductive-split';

/**
 * Each held-out entity's ingested edges in the model's ids (edges it cannot use dropped), with
 * their known answers in the version's `graph`, as the server gives them.
 */
export function foldInEdges(
  model: Native.NeptuneModel,
  heldOut: string[],
  ingested: Named[],
  graph: GraphIndex,
) {
  const entity = new Map(model.entities.map((x, i) => [x, i]));
  const relation = new Map(model.relations.map((x, i) => [x, i]));
  const edges = new Map<string, Native.FoldInEdge[]>(heldOut.map((x) => [x, []]));
  const push = (to: string, edge: Omit<Native.FoldInEdge, 'answers'>) =>
    edges.get(to)!.push({ ...edge, answers: knownAnswers(graph, edge) });
  for (const [h, r, t] of ingested) {
    const rel = relation.get(r);
    if (rel === undefined) continue;
    if (edges.has(h) && entity.has(t))
      push(h, { relation: rel, other: entity.get(t)!, outgoing: true });
    if (edges.has(t) && entity.has(h))
      push(t, { relation: rel, other: entity.get(h)!, outgoing: false });
  }
  return [...edges].filter(([, list]) => list.length > 0);
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}
