import { seededRandom } from '../../seeded-random';
import type { GraphIndex } from '../rules/graph-index';
import { CANARY_EDGES } from './canary-file';

/**
 * A version's canary edges when its directory has no canary.json (versions trained before it):
 * a seeded sample of its graph's edges (flat [h, r, t, ...]). Edges it was trained on rank
 * higher than held-out ones, but the canary measures a change, which they show as well.
 */
export function canaryEdges(graph: GraphIndex, seed = 57): Uint32Array | undefined {
  const total = graph.heads.length;
  if (total === 0) return undefined;
  const next = seededRandom(seed);
  const picked = new Set<number>();
  const want = Math.min(CANARY_EDGES, total);
  // Positions in the relations' edge lists laid end to end (graph-index.ts keeps them per
  // relation): an edge and its relation at once, without a pass over every edge.
  while (picked.size < want) picked.add(Math.floor(next() * total));
  const out = new Uint32Array(3 * want);
  [...picked].forEach((position, k) => {
    let r = 0;
    let first = 0;
    while (first + (graph.byRelation[r] as Int32Array).length <= position) {
      first += (graph.byRelation[r] as Int32Array).length;
      r++;
    }
    const i = (graph.byRelation[r] as Int32Array)[position - first] as number;
    out[3 * k] = graph.heads[i] as number;
    out[3 * k + 1] = r;
    out[3 * k + 2] = graph.tails[i] as number;
  });
  return out;
}
