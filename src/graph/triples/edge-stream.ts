import type { Database } from '../database';
import { mapNeo4jError } from '../neo4j-errors';
import { EDGE_SOURCE } from '../predictions/provenance';
import { ENTITY_IDS_BY_NODE, RELATION_TYPES, streamEdgesByNodeQuery } from './export-queries';
import { SUGGESTED_TYPE } from '../suggestions/suggested-type';

export interface EdgeFilter {
  /** Only these relation types; undefined means all. */
  relations?: string[];
  /**
   * Accepted predictions (`kgc_source = 'prediction'`) are exported unless this is false; facts,
   * predictions later ingested as facts included, always are.
   */
  includePredictions?: boolean;
}

/** Records (heads) pulled per round trip: large, so the stream is not latency-bound. */
const EXPORT_FETCH_SIZE = 5_000;

/** How `streamEdgesByNode` hands over what it reads, all inside one read transaction. */
export interface NodeEdgeVisitor {
  /** First: the relation types; an edge's type is `packed % types.length`. */
  onRelationTypes(types: readonly string[]): void;
  /**
   * Per head: its node id (valid inside this read only), its entity id and its out-edges, each
   * `tailNode * types.length + type`, or null for a type created since the types were read
   * (skip it: the edge is newer than the read). `out` is the driver's array: do not keep it.
   */
  onHead(node: number, head: string, out: readonly (number | null)[]): void;
  /** After the stream: the node ids still without an entity id (tails that were no head). */
  unnamedNodes(): readonly number[];
  /** Their entity ids, in batches; a node deleted since the stream is left out. */
  onNames(nodes: readonly number[], ids: readonly string[]): void;
}

/** Node ids named per query: one record of two lists each. */
const NAMES_PER_QUERY = 50_000;

/**
 * Every edge the filter keeps, as numbers (streamEdgesByNodeQuery says why), in one read transaction, so a
 * node id means one node throughout. Returns the edge count (null edges included).
 */
export async function streamEdgesByNode(
  db: Database,
  filter: EdgeFilter,
  visitor: NodeEdgeVisitor,
): Promise<number> {
  const session = db.openSession('READ', EXPORT_FETCH_SIZE);
  const tx = session.beginTransaction();
  let count = 0;
  try {
    const typesResult = await tx.run(RELATION_TYPES);
    const types = (typesResult.records[0]?.get('types') ?? []) as string[];
    visitor.onRelationTypes(types);
    const result = tx.run(
      streamEdgesByNodeQuery({
        relations: filter.relations !== undefined,
        excludePredictions: filter.includePredictions === false,
      }),
      {
        typeCount: Math.max(types.length, 1),
        typeIndex: Object.fromEntries(types.map((type, i) => [type, i])),
        relations: filter.relations ?? null,
        prediction: EDGE_SOURCE.prediction,
        suggested: SUGGESTED_TYPE,
      },
    );
    for await (const record of result) {
      const out = record.get(2) as (number | null)[];
      visitor.onHead(record.get(0) as number, record.get(1) as string, out);
      count += out.length;
    }
    const unnamed = visitor.unnamedNodes();
    for (let from = 0; from < unnamed.length; from += NAMES_PER_QUERY) {
      const names = await tx.run(ENTITY_IDS_BY_NODE, {
        nodes: unnamed.slice(from, from + NAMES_PER_QUERY),
      });
      const record = names.records[0];
      if (record) visitor.onNames(record.get('nodes') as number[], record.get('ids') as string[]);
    }
    await tx.commit();
    return count;
  } catch (error) {
    throw mapNeo4jError(error, db.target.uri);
  } finally {
    if (tx.isOpen()) await tx.rollback().catch(() => undefined);
    await session.close();
  }
}
