/** Rows per chunk of the row columns: chunks never move, so growth copies no rows. */
const CHUNK_BITS = 20;
const CHUNK_ROWS = 1 << CHUNK_BITS;
const EMPTY = 0;

/**
 * A set of `(head, relation, tail)` triples of dense integer ids, for deduplicating millions of
 * edges without a string per edge: the rows live in fixed-size Int32Array chunks (12 bytes a
 * triple) and an open-addressing table of row numbers (4 bytes a slot, at most half full) finds
 * them. About 20 bytes per distinct triple; growing rehashes the table only.
 */
export class TripleSet {
  private readonly chunks: Int32Array[] = [];
  /** Row number + 1 per slot; EMPTY is free. */
  private slots: Int32Array;
  private mask: number;
  private count = 0;

  constructor(expected = 1024) {
    let capacity = 1024;
    while (capacity < expected * 2) capacity *= 2;
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Adds the triple; false when it was already there. */
  add(head: number, relation: number, tail: number): boolean {
    let slot = hash(head, relation, tail) & this.mask;
    for (;;) {
      const entry = this.slots[slot] as number;
      if (entry === EMPTY) break;
      if (this.rowEquals(entry - 1, head, relation, tail)) return false;
      slot = (slot + 1) & this.mask;
    }
    const row = this.count;
    this.writeRow(row, head, relation, tail);
    this.slots[slot] = row + 1;
    this.count += 1;
    if (this.count * 2 > this.slots.length) this.grow();
    return true;
  }

  private rowEquals(row: number, head: number, relation: number, tail: number): boolean {
    const chunk = this.chunks[row >>> CHUNK_BITS] as Int32Array;
    const at = (row & (CHUNK_ROWS - 1)) * 3;
    return chunk[at] === head && chunk[at + 1] === relation && chunk[at + 2] === tail;
  }

  private writeRow(row: number, head: number, relation: number, tail: number): void {
    const index = row >>> CHUNK_BITS;
    if (index === this.chunks.length) this.chunks.push(new Int32Array(CHUNK_ROWS * 3));
    const chunk = this.chunks[index] as Int32Array;
    const at = (row & (CHUNK_ROWS - 1)) * 3;
    chunk[at] = head;
    chunk[at + 1] = relation;
    chunk[at + 2] = tail;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let row = 0; row < this.count; row++) {
      const chunk = this.chunks[row >>> CHUNK_BITS] as Int32Array;
      const at = (row & (CHUNK_ROWS - 1)) * 3;
      let slot = hash(chunk[at] as number, chunk[at + 1] as number, chunk[at + 2] as number) & mask;
      while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      slots[slot] = row + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** murmur3's 32-bit finaliser over the three ids: dense ids spread over the whole table. */
function hash(head: number, relation: number, tail: number): number {
  let h = Math.imul(head, 0x9e3779b1) ^ Math.imul(relation + 1, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 15), 0xc2b2ae35) ^ tail;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
