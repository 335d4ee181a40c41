import type { FoldInConfig } from '../config';
import { entityNeighbourhoods, entityPages, graphChangeStamp } from '../graph';
import type { Database } from '../graph';
import { FoldInService } from '../model';
import type { ServingModel } from '../model';
import type { Logger } from './logger';

/** Entities read per page while looking for new or changed ones. */
const SCAN_PAGE = 10_000;

/** The fold-in service of a serving process, reading the graph through src/graph. */
export function foldInService(
  db: Database,
  config: FoldInConfig,
  base: () => ServingModel | undefined,
  logger: Logger,
): FoldInService {
  return new FoldInService(
    base,
    {
      neighbourhoods: (ids) => entityNeighbourhoods(db, ids, config.maxEdges),
      stamp: () => graphChangeStamp(db),
      entityPages: () => entityPages(db, SCAN_PAGE),
    },
    config,
    logger,
  );
}
