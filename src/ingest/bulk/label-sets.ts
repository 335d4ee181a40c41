/**
 * The labels of each entity of a bulk load, kept as an index into interned label sets: a graph
 * has few distinct sets (a type or two per entity), so each entity costs 4 bytes, not an array.
 */
export class EntityLabelSets {
  /** Entity id → label set index; 0 is the empty set. */
  private setOf = new Int32Array(1024);
  private readonly sets: string[][] = [[]];
  private readonly setIds = new Map<string, number>([['', 0]]);

  /** Adds labels to the entity (a union: labels are only ever added, as SET e:$(labels) does). */
  add(entity: number, labels: readonly string[]): void {
    if (entity >= this.setOf.length) {
      let length = this.setOf.length;
      while (length <= entity) length *= 2;
      const grown = new Int32Array(length);
      grown.set(this.setOf);
      this.setOf = grown;
    }
    const current = this.sets[this.setOf[entity] as number] as string[];
    const union = [...new Set([...current, ...labels])].sort();
    // `;` cannot occur in a label (labelProblem), so the joined text is a faithful key.
    const key = union.join(';');
    let id = this.setIds.get(key);
    if (id === undefined) {
      id = this.sets.length;
      this.sets.push(union);
      this.setIds.set(key, id);
    }
    this.setOf[entity] = id;
  }

  /** The index of the entity's label set (0: none), stable for the life of this object. */
  setIndex(entity: number): number {
    return entity < this.setOf.length ? (this.setOf[entity] as number) : 0;
  }

  labels(setIndex: number): readonly string[] {
    return this.sets[setIndex] ?? [];
  }
}
