import type { Database } from '../database';
import { mapNeo4jError } from '../neo4j-errors';
import { STREAM_EDGES } from './export-queries';

export interface EdgeFilter {
  /** Only these relation types; undefined means all. */
  relations?: string[];
  /** Accepted predictions (`source = 'prediction'`) are exported unless this is false. */
  includePredictions?: boolean;
}

/** Records (heads) pulled per round trip: large, so the stream is not latency-bound. */
export const EXPORT_FETCH_SIZE = 5_000;

/**
 * Streams every edge to `onEdge` as it arrives (the driver pulls `fetchSize` records at a
 * time), so memory holds one fetch window, never the whole result.
 */
export async function streamEdges(
  db: Database,
  filter: EdgeFilter,
  onEdge: (head: string, relation: string, tail: string) => void,
): Promise<number> {
  const session = db.openSession('READ', EXPORT_FETCH_SIZE);
  let count = 0;
  try {
    const result = session.run(STREAM_EDGES, {
      relations: filter.relations ?? null,
      includePredictions: filter.includePredictions ?? true,
    });
    for await (const record of result) {
      const head = record.get(0) as string;
      for (const [relation, tail] of record.get(1) as [string, string][]) {
        onEdge(head, relation, tail);
        count += 1;
      }
    }
    return count;
  } catch (error) {
    throw mapNeo4jError(error, db.target.uri);
  } finally {
    await session.close();
  }
}
