/** Ids in first-seen order while streaming; `sorted()` gives the final order and a remap. */
export class Vocabulary {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [];
  idOf(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }
  /** remap[provisional] = final id in sorted order. */
  sorted(): { names: string[]; remap: Int32Array } {
    return sortedNames(this.names);
  }
}

/**
 * The names given (by provisional id; undefined: left out) in JS string order, and
 * remap[provisional] = final id (-1 for one left out).
 */
export function sortedNames(names: readonly (string | undefined)[]): {
  names: string[];
  remap: Int32Array;
} {
  const order: number[] = [];
  names.forEach((name, i) => {
    if (name !== undefined) order.push(i);
  });
  order.sort((a, b) => compare(names[a] as string, names[b] as string));
  const remap = new Int32Array(names.length).fill(-1);
  order.forEach((provisional, final) => (remap[provisional] = final));
  return { names: order.map((i) => names[i] as string), remap };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
