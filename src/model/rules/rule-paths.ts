import type { GraphIndex } from './graph-index';
import { reverseStep } from './graph-index';

/** How far one pair's search may go (the serving limits, see src/resolvers/reasons.ts). */
export interface PathSearchLimits {
  /** Paths returned per rule. */
  perRule: number;
  /** Middle nodes of 3-step paths with more edges (both directions) than this are skipped. */
  hub: number;
  /** Index entries one rule's search may walk (each one edge test) before it stops. */
  budget: number;
}

/**
 * Instances of a rule body between x and y: node sequences [x, z1, ..., y] through distinct
 * nodes, each consecutive pair joined by the body's step (2r: an edge (a, r, b); 2r + 1: an edge
 * (b, r, a)). One step is an edge test; two steps intersect x's forward range with y's reverse
 * range (the smaller one is walked, the other binary-searched); three steps walk the middle
 * nodes on the smaller end's side and intersect from each. Middle nodes of 3-step paths above
 * `hub` edges are skipped (paths through them explain little and cost most). Results come in
 * ascending order of the walked side's node ids: the same graph gives the same paths.
 */
export function rulePaths(
  index: GraphIndex,
  x: number,
  y: number,
  steps: readonly number[],
  limits: PathSearchLimits,
): number[][] {
  if (x === y || limits.perRule <= 0) return [];
  if (steps.length === 1) return index.has(x, steps[0] as number, y) ? [[x, y]] : [];
  const search = new Search(index, limits);
  if (steps.length === 2) {
    search.middles(x, steps[0] as number, y, reverseStep(steps[1] as number), (z) => {
      search.found.push([x, z, y]);
    });
    return search.found;
  }
  if (steps.length !== 3) return [];
  const [s1, s2, s3] = steps as [number, number, number];
  // Walk from the end with fewer first-step neighbours; the found paths read x to y either way.
  const [fromX, fromY] = [countOf(index, x, s1), countOf(index, y, reverseStep(s3))];
  const [a, b, first, middle, last] =
    fromX <= fromY ? [x, y, s1, s2, reverseStep(s3)] : [y, x, reverseStep(s3), reverseStep(s2), s1];
  const [start, end] = index.range(a, first);
  for (let e = start; e < end && search.open(); e++) {
    search.spend(1);
    const z = index.neighbour[e] as number;
    if (z === x || z === y || index.degree(z) > limits.hub) continue;
    search.middles(z, middle, b, last, (w) => {
      if (w === a || index.degree(w) > limits.hub) return;
      search.found.push(a === x ? [x, z, w, y] : [x, w, z, y]);
    });
  }
  return search.found;
}

function countOf(index: GraphIndex, node: number, step: number): number {
  const [start, end] = index.range(node, step);
  return end - start;
}

/** One rule's search state: paths found so far and the budget left. */
class Search {
  readonly found: number[][] = [];
  private left: number;

  constructor(
    private readonly index: GraphIndex,
    private readonly limits: PathSearchLimits,
  ) {
    this.left = limits.budget;
  }

  spend(entries: number): void {
    this.left -= entries;
  }

  open(): boolean {
    return this.found.length < this.limits.perRule && this.left > 0;
  }

  /**
   * Calls `each(z)` for the z with edges a -sa- z and b -sb- z (z ≠ a, b), ascending, while the
   * search is open: walks the smaller range and tests membership in the other.
   */
  middles(a: number, sa: number, b: number, sb: number, each: (z: number) => void): void {
    const { index } = this;
    const [aStart, aEnd] = index.range(a, sa);
    const [bStart, bEnd] = index.range(b, sb);
    const walkA = aEnd - aStart <= bEnd - bStart;
    const [start, end, other, step] = walkA ? [aStart, aEnd, b, sb] : [bStart, bEnd, a, sa];
    this.spend(1);
    for (let e = start; e < end && this.open(); e++) {
      this.spend(1);
      const z = index.neighbour[e] as number;
      if (z !== a && z !== b && index.has(other, step, z)) each(z);
    }
  }
}

/**
 * The other ends of `node`'s edges by `step` (for step 2r: the tails of node's r edges), at most
 * `limit`, ascending, never the node itself.
 */
export function stepNeighbours(
  index: GraphIndex,
  node: number,
  step: number,
  limit: number,
): number[] {
  const [start, end] = index.range(node, step);
  const out: number[] = [];
  for (let e = start; e < end && out.length < limit; e++) {
    const other = index.neighbour[e] as number;
    if (other !== node) out.push(other);
  }
  return out;
}
