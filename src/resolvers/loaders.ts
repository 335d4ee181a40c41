import DataLoader from 'dataloader';
import { Database, entitiesById } from '../graph';
import type { Prediction } from '../schema/prediction.type';
import { reasonsBatch } from './reasons';
import type { RequestLoaders } from './request-context';

/** Predictions per reasons read: a missingLinksBatch of 256 queries at k = 10 is 2,560. */
export const REASONS_BATCH = 4096;

/** Fresh per request: caching across requests would serve stale properties. */
export function createLoaders(db: Database): RequestLoaders {
  return {
    entity: new DataLoader(async (ids: readonly string[]) => {
      const found = await entitiesById(db, ids);
      return ids.map((id) => found.get(id));
    }),
    // Every prediction of the request whose reasons are asked for: one read for all of them.
    reasons: new DataLoader((predictions: readonly Prediction[]) => reasonsBatch(db, predictions), {
      cache: false,
      maxBatchSize: REASONS_BATCH,
      batchScheduleFn: (run) => setImmediate(run),
    }),
  };
}
