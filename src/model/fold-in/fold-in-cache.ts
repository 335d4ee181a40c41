import type { CanaryImpact } from './fold-in-canary';
import type { FoldedTypeFacts, FoldInEdge } from './fold-in-edges';

interface Folded {
  fingerprint: string;
  /** The edges it was fitted to (the canary filters the questions it answers). */
  edges: readonly FoldInEdge[];
  /** d_e floats. */
  row: Float32Array;
  types: FoldedTypeFacts;
  /** What its row does to the version's canary (absent: admitted without one). */
  impact?: CanaryImpact;
}

/** The folded rows of one version, in the order they are appended to its model. */
export interface FoldedRows {
  names: string[];
  /** `names.length x d_e`, row i for names[i]. */
  embeddings: Float32Array;
  types: FoldedTypeFacts[];
  edges: (readonly FoldInEdge[])[];
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

  put(
    id: string,
    fingerprint: string,
    row: Float32Array,
    types: FoldedTypeFacts,
    edges: readonly FoldInEdge[],
    impact?: CanaryImpact,
  ): void {
    // A refreshed entity keeps its place: the others' ids in the next model do not move.
    const entry: Folded = { fingerprint, row: Float32Array.from(row), types, edges };
    if (impact) entry.impact = impact;
    this.folded.set(id, entry);
  }

  /** The canary impacts of the folded entities not in `except`. */
  impacts(except?: ReadonlySet<string>): CanaryImpact[] {
    const out: CanaryImpact[] = [];
    for (const [name, entry] of this.folded) {
      if (entry.impact && !except?.has(name)) out.push(entry.impact);
    }
    return out;
  }

  /** The entity has no usable edge now (or is gone): it is served no more; true if it was. */
  drop(id: string): boolean {
    return this.folded.delete(id);
  }

  /** Every folded entity's rows, or those not in `except`. */
  rows(except?: ReadonlySet<string>): FoldedRows {
    const names = [...this.folded.keys()].filter((name) => !except?.has(name));
    const dimension = this.folded.values().next().value?.row.length ?? 0;
    const embeddings = new Float32Array(names.length * dimension);
    const types: FoldedTypeFacts[] = [];
    const edges: (readonly FoldInEdge[])[] = [];
    names.forEach((name, i) => {
      const entry = this.folded.get(name) as Folded;
      embeddings.set(entry.row, i * dimension);
      types.push(entry.types);
      edges.push(entry.edges);
    });
    return { names, embeddings, types, edges };
  }
}
