import { TURN_CHECK_EVERY } from '../../event-loop-turns';
import type { EventLoopTurns } from '../../event-loop-turns';

/**
 * Adjacency of a dense graph for path search, both directions: every edge (h, r, t) appears at
 * h as step `2r` (forward) to t and at t as step `2r + 1` (backward) to h. Each node's entries
 * are sorted by (step, neighbour), so one node's neighbours by one step are a contiguous range
 * and an edge test is a binary search.
 */
export class GraphIndex {
  readonly nodes: number;
  readonly steps: number;
  /** CSR: node n's entries are [offsets[n], offsets[n + 1]). */
  readonly offsets: Int32Array;
  readonly step: Int32Array;
  readonly neighbour: Int32Array;
  /** Edge indices of each relation (for sampling its facts). */
  readonly byRelation: Int32Array[];

  private constructor(
    nodes: number,
    relations: number,
    readonly heads: Int32Array,
    readonly tails: Int32Array,
    parts: {
      offsets: Int32Array;
      step: Int32Array;
      neighbour: Int32Array;
      byRelation: Int32Array[];
    },
  ) {
    this.nodes = nodes;
    this.steps = 2 * relations;
    this.offsets = parts.offsets;
    this.step = parts.step;
    this.neighbour = parts.neighbour;
    this.byRelation = parts.byRelation;
  }

  /** Builds the index, giving the event loop turns on big graphs. */
  static async build(
    nodes: number,
    relations: number,
    heads: Int32Array,
    rels: Int32Array,
    tails: Int32Array,
    turns: EventLoopTurns,
  ): Promise<GraphIndex> {
    const edges = heads.length;
    const offsets = new Int32Array(nodes + 1);
    for (let i = 0; i < edges; i++) {
      bump(offsets, (heads[i] as number) + 1);
      bump(offsets, (tails[i] as number) + 1);
    }
    for (let n = 0; n < nodes; n++)
      offsets[n + 1] = (offsets[n + 1] as number) + (offsets[n] as number);
    // step * nodes + neighbour: sorted numerically, it orders by step then neighbour.
    const keys = new Float64Array(2 * edges);
    const fill = offsets.slice(0, nodes);
    for (let i = 0; i < edges; i++) {
      const h = heads[i] as number;
      const r = rels[i] as number;
      const t = tails[i] as number;
      keys[bump(fill, h)] = 2 * r * nodes + t;
      keys[bump(fill, t)] = (2 * r + 1) * nodes + h;
    }
    await turns.turn();
    for (let n = 0; n < nodes; n++) {
      keys.subarray(offsets[n] as number, offsets[n + 1] as number).sort();
      if (n % TURN_CHECK_EVERY === 0) await turns.maybeTurn();
    }
    const step = new Int32Array(2 * edges);
    const neighbour = new Int32Array(2 * edges);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as number;
      step[i] = Math.floor(key / nodes);
      neighbour[i] = key - (step[i] as number) * nodes;
    }
    await turns.turn();
    const counts = new Int32Array(relations);
    for (let i = 0; i < edges; i++) bump(counts, rels[i] as number);
    const byRelation = Array.from(counts, (count) => new Int32Array(count));
    counts.fill(0);
    for (let i = 0; i < edges; i++) {
      const r = rels[i] as number;
      (byRelation[r] as Int32Array)[bump(counts, r)] = i;
    }
    return new GraphIndex(nodes, relations, heads, tails, { offsets, step, neighbour, byRelation });
  }

  private endCounts: Int32Array | undefined;

  /**
   * How many distinct nodes `step` leads to from anywhere in the graph (the nodes with an
   * entry of the reverse step): the most ends a walk whose last step this is can reach.
   */
  endsOf(step: number): number {
    if (!this.endCounts) {
      const counts = new Int32Array(this.steps);
      for (let n = 0; n < this.nodes; n++) {
        let last = -1;
        for (let e = this.offsets[n] as number; e < (this.offsets[n + 1] as number); e++) {
          const s = this.step[e] as number;
          if (s !== last) bump(counts, reverseStep(s));
          last = s;
        }
      }
      this.endCounts = counts;
    }
    return (this.endCounts[step] as number) ?? 0;
  }

  /**
   * The first of `node`'s entries with `step` or a later one (its entries by `step` run from
   * there while their step is `step`, before `offsets[node + 1]`).
   */
  first(node: number, step: number): number {
    let lo = this.offsets[node] as number;
    let hi = this.offsets[node + 1] as number;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.step[mid] as number) < step) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  degree(node: number): number {
    return (this.offsets[node + 1] as number) - (this.offsets[node] as number);
  }

  /** The first entry of `node` at or after (step, neighbour). */
  private lowerBound(node: number, step: number, neighbour: number): number {
    let lo = this.offsets[node] as number;
    let hi = this.offsets[node + 1] as number;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.step[mid] as number;
      if (s < step || (s === step && (this.neighbour[mid] as number) < neighbour)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** [start, end) of `node`'s neighbours by `step`. */
  range(node: number, step: number): [number, number] {
    return [this.first(node, step), this.first(node, step + 1)];
  }

  /** Whether `from` reaches `to` by `step` (an edge (from, r, to) for step 2r). */
  has(from: number, step: number, to: number): boolean {
    const i = this.lowerBound(from, step, to);
    return (
      i < (this.offsets[from + 1] as number) && this.step[i] === step && this.neighbour[i] === to
    );
  }
}

/** The step that walks back along `step`. */
export function reverseStep(step: number): number {
  return step ^ 1;
}

/** `array[i]++`: returns the value before the increment. */
function bump(array: Int32Array, i: number): number {
  const value = array[i] as number;
  array[i] = value + 1;
  return value;
}
