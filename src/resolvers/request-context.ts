import type { Database } from '../graph';
import type { Scorer } from '../model';

/** The model answering queries, and where it came from. */
export interface ServingModel {
  scorer: Scorer;
  source: string;
}

/** What every resolver gets: the database boundary, the serving model, request facts. */
export interface RequestContext {
  db: Database;
  model: ServingModel | undefined;
  version: string;
}
