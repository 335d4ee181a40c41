import crypto from 'node:crypto';
import type { Database } from '../database';
import { DEFAULT_SCOPE, isoTime } from './registry-scope';

export interface RetrainRequest {
  id: string;
  requestedAt: string;
}

/**
 * Asks for a retraining: the worker polls for pending requests and runs the job; the job that
 * starts next consumes every pending request (see `startTrainingRun`).
 */
export async function requestRetraining(
  db: Database,
  request: { requestedBy: string },
  scope = DEFAULT_SCOPE,
): Promise<RetrainRequest> {
  const id = `req-${crypto.randomUUID()}`;
  return db.write(async (tx) => {
    const result = await tx.run(
      `CREATE (q:RetrainRequest {id: $id, scope: $scope, requestedBy: $requestedBy,
         requestedAt: timestamp()})
       RETURN q.requestedAt AS requestedAt`,
      { id, scope, requestedBy: request.requestedBy },
    );
    return { id, requestedAt: isoTime(result.records[0]?.get('requestedAt')) as string };
  });
}

/** How many requests wait for a job. */
export async function pendingRetrainRequests(db: Database, scope = DEFAULT_SCOPE): Promise<number> {
  return db.read(async (tx) => {
    const result = await tx.run(
      `MATCH (q:RetrainRequest {scope: $scope}) WHERE q.consumedAt IS NULL
       RETURN count(q) AS n`,
      { scope },
    );
    return Number(result.records[0]?.get('n') ?? 0);
  });
}
