import { Env, readEnum, readInt } from './env-readers';

/**
 * How `missingLinks` finds its top k on large graphs (docs/scaling.md, "Approximate top-k").
 * `exact` scans every entity (always exact); `hnsw` builds an HNSW index over the served
 * version's entity rows in the background and, once built, answers through it: candidates
 * re-scored exactly, known and rejected edges never returned, approximate only in that a true
 * top-k entity can be missed.
 */
export interface TopKIndexConfig {
  kind: 'exact' | 'hnsw';
  /** Versions with fewer entities are scanned exactly even with `hnsw` (fast enough there). */
  minEntities: number;
  /** Search width per query: higher finds more of the exact top k, slower. */
  searchWidth: number;
  /** Neighbours kept per entity in the graph (HNSW's M). */
  connections: number;
  /** Search width while building (HNSW's efConstruction). */
  buildWidth: number;
}

export function readTopKIndex(env: Env): TopKIndexConfig {
  return {
    kind: readEnum(env, 'KGC_TOPK_INDEX', 'exact', ['exact', 'hnsw'] as const),
    minEntities: readInt(env, 'KGC_TOPK_INDEX_MIN_ENTITIES', 100_000, { min: 0, max: 2 ** 31 }),
    searchWidth: readInt(env, 'KGC_TOPK_INDEX_SEARCH_WIDTH', 256, { min: 1, max: 100_000 }),
    connections: readInt(env, 'KGC_TOPK_INDEX_CONNECTIONS', 24, { min: 2, max: 255 }),
    buildWidth: readInt(env, 'KGC_TOPK_INDEX_BUILD_WIDTH', 200, { min: 1, max: 100_000 }),
  };
}
