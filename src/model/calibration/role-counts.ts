import { EventLoopTurns } from '../../event-loop-turns';
import { GraphIndex } from '../rules/graph-index';
import type { EdgeFeatures } from './edge-calibration';

/** A graph's edges in the model's ids, flat [h, r, t, ...], as a path index (its counts are read). */
export async function countingGraph(
  entities: number,
  relations: number,
  flat: Uint32Array,
  turns = new EventLoopTurns(),
): Promise<GraphIndex> {
  const n = flat.length / 3;
  const heads = new Int32Array(n);
  const rels = new Int32Array(n);
  const tails = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    heads[i] = flat[3 * i] as number;
    rels[i] = flat[3 * i + 1] as number;
    tails[i] = flat[3 * i + 2] as number;
  }
  return GraphIndex.build(entities, relations, heads, rels, tails, turns);
}

/** Edges of `graph` with `node` at one end by `step` (0 for an entity the graph does not have). */
function count(graph: GraphIndex, node: number, step: number): number {
  if (node >= graph.nodes) return 0;
  const [start, end] = graph.range(node, step);
  return end - start;
}

/**
 * The features of edge (h, r, t) (base relation r) given its two logits and its rules' evidence
 * (`edgeRuleEvidence`; 0 without rules): its ends' counts in `graph` leave the edge itself out,
 * so an edge in the graph and one not in it are counted alike (a held-out positive fitted on is
 * in the graph; a corruption is not).
 */
export function edgeFeatures(
  graph: GraphIndex,
  h: number,
  r: number,
  t: number,
  tailLogit: number,
  headLogit: number,
  rules: { tail: number; head: number } = { tail: 0, head: 0 },
): EdgeFeatures {
  const self = h < graph.nodes && graph.has(h, 2 * r, t) ? 1 : 0;
  return {
    tailLogit,
    headLogit,
    tailCount: count(graph, t, 2 * r + 1) - self,
    headCount: count(graph, h, 2 * r) - self,
    tailRule: rules.tail,
    headRule: rules.head,
  };
}
