import DataLoader from 'dataloader';
import { Database, entitiesById } from '../graph';
import type { RequestLoaders } from './request-context';

/** Fresh per request: caching across requests would serve stale properties. */
export function createLoaders(db: Database): RequestLoaders {
  return {
    entity: new DataLoader(async (ids: readonly string[]) => {
      const found = await entitiesById(db, ids);
      return ids.map((id) => found.get(id));
    }),
  };
}
