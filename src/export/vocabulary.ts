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
    const order = this.names
      .map((_, i) => i)
      .sort((a, b) => compare(this.names[a] as string, this.names[b] as string));
    const remap = new Int32Array(order.length);
    order.forEach((provisional, final) => (remap[provisional] = final));
    return { names: order.map((i) => this.names[i] as string), remap };
  }
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
