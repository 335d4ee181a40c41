/**
 * Edges as growing id columns (heads, relations, tails): 12 bytes an edge, not three JS arrays of
 * numbers, and handed to the engine as they are.
 */
export class EdgeColumns {
  private heads = new Uint32Array(1024);
  private relations = new Uint32Array(1024);
  private tails = new Uint32Array(1024);
  private count = 0;

  push(head: number, relation: number, tail: number): void {
    if (this.count === this.heads.length) {
      const grow = (a: Uint32Array) => {
        const b = new Uint32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.heads = grow(this.heads);
      this.relations = grow(this.relations);
      this.tails = grow(this.tails);
    }
    this.heads[this.count] = head;
    this.relations[this.count] = relation;
    this.tails[this.count] = tail;
    this.count++;
  }

  /** Views of the edges pushed so far. */
  columns(): { heads: Uint32Array; relations: Uint32Array; tails: Uint32Array } {
    const n = this.count;
    return {
      heads: this.heads.subarray(0, n),
      relations: this.relations.subarray(0, n),
      tails: this.tails.subarray(0, n),
    };
  }
}
