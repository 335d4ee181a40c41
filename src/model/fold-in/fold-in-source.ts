/**
 * What fold-in reads from the graph, handed in by the server (src/model never talks to Neo4j:
 * the reads live in src/graph/fold-in and are wired where the service is built).
 */

/** One edge of an entity, seen from that entity (as src/graph reads it). */
interface NeighbourEdge {
  relation: string;
  other: string;
  /** true: `(entity, relation, other)`; false: `(other, relation, entity)`. */
  outgoing: boolean;
}

export interface Neighbourhood {
  edges: NeighbourEdge[];
  /** The entity's labels other than Entity. */
  labels: string[];
}

export interface FoldInSource {
  /** Each entity's edges and labels now; undefined: no such entity (anymore). */
  neighbourhoods(ids: readonly string[]): Promise<(Neighbourhood | undefined)[]>;
  /** Changes whenever entities or edges are added or removed; cheap to read. */
  stamp(): Promise<string>;
  /** Every entity of the graph with its degree, page by page: `ids[i]` has `degrees[i]` edges. */
  entityPages(): AsyncIterable<{ ids: string[]; degrees: number[] }>;
}

/** How fold-in runs (src/config, KGC_FOLD_IN_*). */
export interface FoldInSettings {
  enabled: boolean;
  /** Optimiser steps per fold-in. */
  steps: number;
  /** Candidates per entity between full passes; 0: exact (every step over all entities). */
  candidates: number;
  /** Learning rate of those steps; undefined: the engine's default. */
  lr?: number;
  /** Entities folded in per engine call. */
  maxBatch: number;
  /** Edges read per entity (a hub's first `maxEdges`). */
  maxEdges: number;
  /** How often the graph's change stamp is read (new entities ingested by another process). */
  pollMs: number;
  /** How long a request for a foldable entity waits for its fold-in. */
  waitMs: number;
  /** The most the folded entities may lower the canary's MRR (fold-in-canary.ts). */
  maxHarm: number;
  /** Entities one version folds in at most (the rest wait for a retraining). */
  maxEntities: number;
}
