import type { GraphIndex } from '../rules/graph-index';

/** An edge of a new entity to a known one, in the version's ids (fold-in-edges.ts). */
interface KnownEdge {
  relation: number;
  other: number;
  /** true: `(new, relation, other)`; false: `(other, relation, new)`. */
  outgoing: boolean;
}

/**
 * The known entities answering the query an edge makes the new entity an answer of, in the
 * graph the version was trained on: for `(new, r, other)` the heads of r into `other`, for
 * `(other, r, new)` the tails of r from `other`. Under the softmax loss fold-in shares that
 * query's target among them and the new entity, as training shares it among a query's answers.
 */
export function knownAnswers(graph: GraphIndex, edge: KnownEdge): number {
  // graph-index.ts: (h, r, t) is step 2r at h and step 2r + 1 at t.
  const step = 2 * edge.relation + (edge.outgoing ? 1 : 0);
  if (edge.other >= graph.nodes || step >= graph.steps) return 0;
  const [start, end] = graph.range(edge.other, step);
  return end - start;
}
