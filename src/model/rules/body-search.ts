import { GraphIndex, reverseStep } from './graph-index';

/**
 * Rule bodies as numbers: steps a1..an (a = 2r forward, 2r + 1 backward) packed as
 * ((a1 + 1) * P + (a2 + 1)) * P + (a3 + 1) with P = steps + 1 and 0 for an absent step.
 */
export function bodyKey(steps: number, body: readonly number[]): number {
  const p = steps + 1;
  return (((body[0] ?? -1) + 1) * p + ((body[1] ?? -1) + 1)) * p + ((body[2] ?? -1) + 1);
}

export function bodySteps(steps: number, key: number): number[] {
  const p = steps + 1;
  const parts = [Math.floor(key / (p * p)), Math.floor(key / p) % p, key % p];
  return parts.filter((part) => part > 0).map((part) => part - 1);
}

/**
 * Finds the bodies of the simple paths (distinct nodes) of length 1 to `maxLength` from x to y,
 * meeting in the middle: y's neighbours are marked first, then paths from x are walked to them.
 * The search stops after `budget` steps (edges scanned and bodies found); x's neighbours are
 * walked from a random offset so a cut search is a sample, not always the same first relations.
 */
export class BodyFinder {
  private readonly stamp: Int32Array;
  /** Per marked node: its first (step into y) in `links`. */
  private readonly first: Int32Array;
  private linkStep = new Int32Array(1024);
  private linkNext = new Int32Array(1024);
  private links = 0;
  private search = 0;
  /** Whether the last search stopped on its budget. */
  truncated = false;

  constructor(
    private readonly index: GraphIndex,
    private readonly maxLength: number,
    private readonly budget: number,
  ) {
    this.stamp = new Int32Array(index.nodes).fill(-1);
    this.first = new Int32Array(index.nodes);
  }

  private link(node: number, step: number): void {
    if (this.links === this.linkStep.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.linkStep = grow(this.linkStep);
      this.linkNext = grow(this.linkNext);
    }
    this.linkStep[this.links] = step;
    this.linkNext[this.links] =
      this.stamp[node] === this.search ? (this.first[node] as number) : -1;
    this.stamp[node] = this.search;
    this.first[node] = this.links++;
  }

  /** Calls `found(key)` for each path body from x to y except the edge (x, skipStep, y) itself. */
  find(x: number, y: number, skipStep: number, offset: number, found: (key: number) => void): void {
    const { index, maxLength } = this;
    const steps = index.steps;
    this.search++;
    this.links = 0;
    this.truncated = false;
    let spent = 0;
    for (let e = index.offsets[y] as number; e < (index.offsets[y + 1] as number); e++) {
      const z = index.neighbour[e] as number;
      const into = reverseStep(index.step[e] as number);
      if (z === x) {
        if (into !== skipStep) found(bodyKey(steps, [into]));
      } else if (z !== y) this.link(z, into);
    }
    if (maxLength < 2) return;
    const start = index.offsets[x] as number;
    const degree = index.degree(x);
    for (let i = 0; i < degree; i++) {
      const e1 = start + ((i + offset) % degree);
      const z1 = index.neighbour[e1] as number;
      const a1 = index.step[e1] as number;
      if (z1 === y || z1 === x) continue;
      for (let l = this.stamp[z1] === this.search ? (this.first[z1] as number) : -1; l >= 0;) {
        found(bodyKey(steps, [a1, this.linkStep[l] as number]));
        l = this.linkNext[l] as number;
        spent++;
      }
      if (maxLength < 3) continue;
      const end = index.offsets[z1 + 1] as number;
      spent += end - (index.offsets[z1] as number) + 1;
      if (spent > this.budget) {
        this.truncated = true;
        return;
      }
      for (let e2 = index.offsets[z1] as number; e2 < end; e2++) {
        const z2 = index.neighbour[e2] as number;
        if (z2 === x || z2 === y || z2 === z1 || this.stamp[z2] !== this.search) continue;
        const a2 = index.step[e2] as number;
        for (let l = this.first[z2] as number; l >= 0; l = this.linkNext[l] as number) {
          found(bodyKey(steps, [a1, a2, this.linkStep[l] as number]));
          spent++;
        }
      }
    }
  }
}
