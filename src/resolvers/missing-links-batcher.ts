import DataLoader from 'dataloader';
import type { Database } from '../graph';
import type { Prediction } from '../schema/prediction.type';
import { answerMissingLinks, MissingLinksQuery } from './missing-links';
import type { ApiMetrics } from './api-metrics';

/** As many queries as one missingLinksBatch may carry. */
export const MAX_BATCH = 256;

/**
 * Batches the missingLinks queries of concurrent requests (DataLoader-style, one server-wide
 * instance): those that arrive in the same turn of the event loop share one Neo4j read and one
 * engine call. Nothing is cached: every query reads the graph as it is when it arrives.
 */
export class MissingLinksBatcher {
  private readonly loader: DataLoader<MissingLinksQuery, Prediction[]>;

  constructor(
    private readonly db: Database,
    private readonly metrics?: ApiMetrics,
  ) {
    this.loader = new DataLoader<MissingLinksQuery, Prediction[]>(
      (queries) => answerMissingLinks(db, queries, metrics),
      {
        cache: false,
        maxBatchSize: MAX_BATCH,
        batchScheduleFn: (run) => setImmediate(run),
      },
    );
  }

  /** One query, batched with whatever else arrives now. */
  load(query: MissingLinksQuery): Promise<Prediction[]> {
    return this.loader.load(query);
  }

  /** A request's own batch: answered together, each query's error in its place. */
  loadMany(queries: MissingLinksQuery[]) {
    return answerMissingLinks(this.db, queries, this.metrics);
  }
}
