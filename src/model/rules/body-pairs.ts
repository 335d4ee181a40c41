import type { GraphIndex } from './graph-index';

/**
 * Counts a body's instances from one start node: the distinct ends y of its simple paths from
 * x (y ≠ x), and how many of them close the rule (an edge (x, relation, y)). Stops after
 * `budget` steps (a hub in the path); `truncated` says so.
 */
export class BodyPairs {
  private readonly seen: Int32Array;
  private search = 0;
  pairs = 0;
  hits = 0;
  truncated = false;
  private budget = 0;

  constructor(private readonly index: GraphIndex) {
    this.seen = new Int32Array(index.nodes).fill(-1);
  }

  /** Counts from x within `budget` steps; returns the steps spent. */
  count(x: number, body: readonly number[], headStep: number, budget: number): number {
    this.budget = budget;
    this.search++;
    this.pairs = 0;
    this.hits = 0;
    this.truncated = false;
    const cost = { spent: 0 };
    this.walk(x, x, -1, body, 0, headStep, cost);
    return cost.spent;
  }

  private walk(
    x: number,
    node: number,
    previous: number,
    body: readonly number[],
    depth: number,
    headStep: number,
    cost: { spent: number },
  ): void {
    const { index } = this;
    const [start, end] = index.range(node, body[depth] as number);
    cost.spent += end - start + 1;
    if (cost.spent > this.budget) {
      this.truncated = true;
      return;
    }
    const last = depth === body.length - 1;
    for (let e = start; e < end && !this.truncated; e++) {
      const next = index.neighbour[e] as number;
      if (next === x || next === previous || next === node) continue;
      if (!last) {
        this.walk(x, next, node, body, depth + 1, headStep, cost);
        continue;
      }
      if (this.seen[next] === this.search) continue;
      this.seen[next] = this.search;
      this.pairs++;
      if (index.has(x, headStep, next)) this.hits++;
    }
  }
}
