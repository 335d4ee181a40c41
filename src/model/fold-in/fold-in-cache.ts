import type { FoldedTypeFacts } from './fold-in-edges';

interface Folded {
  fingerprint: string;
  /** d_e floats. */
  row: Float32Array;
  types: FoldedTypeFacts;
}

/** The folded rows of one version, in the order they are appended to its model. */
export interface FoldedRows {
  names: string[];
  /** `names.length x d_e`, row i for names[i]. */
  embeddings: Float32Array;
  types: FoldedTypeFacts[];
}

/**
 * The entities folded into one model version, each with the fingerprint of the edge set it was
 * fitted to: an entity is folded again exactly when its edges (or labels) changed. A new
 * version starts a new cache (the service drops the old one with its version).
 */
export class FoldInCache {
  private readonly folded = new Map<string, Folded>();

  get size(): number {
    return this.folded.size;
  }

  has(id: string): boolean {
    return this.folded.has(id);
  }

  /** Whether `id` with this edge set must be (re)fitted. */
  isStale(id: string, fingerprint: string): boolean {
    return this.folded.get(id)?.fingerprint !== fingerprint;
  }

  put(id: string, fingerprint: string, row: Float32Array, types: FoldedTypeFacts): void {
    // A refreshed entity keeps its place: the others' ids in the next model do not move.
    this.folded.set(id, { fingerprint, row: Float32Array.from(row), types });
  }

  /** The entity has no usable edge now (or is gone): it is served no more; true if it was. */
  drop(id: string): boolean {
    return this.folded.delete(id);
  }

  rows(): FoldedRows {
    const names = [...this.folded.keys()];
    const dimension = this.folded.values().next().value?.row.length ?? 0;
    const embeddings = new Float32Array(names.length * dimension);
    const types: FoldedTypeFacts[] = [];
    names.forEach((name, i) => {
      const entry = this.folded.get(name) as Folded;
      embeddings.set(entry.row, i * dimension);
      types.push(entry.types);
    });
    return { names, embeddings, types };
  }
}
