import type { Database } from '../graph';

/** What every resolver gets: the database boundary and request facts. */
export interface RequestContext {
  db: Database;
  version: string;
}
