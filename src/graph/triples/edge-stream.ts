import type { Database } from '../database';
import { mapNeo4jError } from '../neo4j-errors';
import { EDGE_SOURCE } from '../predictions/provenance';
import { streamEdgesQuery } from './export-queries';
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

/**
 * Streams every edge a head at a time (the driver pulls `EXPORT_FETCH_SIZE` records per round
 * trip, so memory holds one fetch window, never the whole result): `out` holds the head's
 * `[relation, tail]` pairs as the driver decoded them (do not keep it). A head per record lets
 * bulk consumers look the head up once per record instead of once per edge.
 */
export async function streamOutEdges(
  db: Database,
  filter: EdgeFilter,
  onHead: (head: string, out: readonly (readonly [string, string])[]) => void,
): Promise<number> {
  const session = db.openSession('READ', EXPORT_FETCH_SIZE);
  const query = streamEdgesQuery({
    relations: filter.relations !== undefined,
    excludePredictions: filter.includePredictions === false,
  });
  let count = 0;
  try {
    const result = session.run(query, {
      relations: filter.relations ?? null,
      prediction: EDGE_SOURCE.prediction,
      suggested: SUGGESTED_TYPE,
    });
    for await (const record of result) {
      const out = record.get(1) as [string, string][];
      onHead(record.get(0) as string, out);
      count += out.length;
    }
    return count;
  } catch (error) {
    throw mapNeo4jError(error, db.target.uri);
  } finally {
    await session.close();
  }
}
