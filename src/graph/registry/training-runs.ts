import neo4j from 'neo4j-driver';
import { ErrorCode, KgcError } from '../../errors';
import type { Database } from '../database';
import { DEFAULT_SCOPE, isoTime, numberOrNull, parseJson, stringOrNull } from './registry-scope';

/**
 * `running` until the job ends: `succeeded` (a version was promoted), `rejected` (the gate kept
 * the active one), `skipped` (too few changed edges for a scheduled run), `failed`, or
 * `interrupted` (stopped, or its process died: the next job marks orphans so).
 */
export type RunStatus = 'running' | 'succeeded' | 'rejected' | 'skipped' | 'failed' | 'interrupted';

export interface TrainingRunRecord {
  id: string;
  status: RunStatus;
  trigger: string;
  phase: string | null;
  epoch: number | null;
  epochs: number | null;
  loss: number | null;
  validMrr: number | null;
  /** Seconds left, estimated from the epochs so far. */
  etaSeconds: number | null;
  startedAt: string;
  endedAt: string | null;
  error: string | null;
  errorCode: string | null;
  /** Why a run that ended without failing promoted nothing (the gate, a changed active version). */
  reason: string | null;
  version: string | null;
  promoted: boolean | null;
  candidateMrr: number | null;
  activeMrr: number | null;
  changedEdges: number | null;
  /** Seconds per phase: export, split, train, evaluate, write, register, gate. */
  timings: Record<string, number> | null;
}

export interface RunProgress {
  phase?: string;
  epoch?: number;
  epochs?: number;
  loss?: number;
  validMrr?: number;
  etaSeconds?: number;
}

export interface RunOutcome {
  status: Exclude<RunStatus, 'running'>;
  /** `done`, or the phase the job failed in. */
  phase?: string;
  error?: string;
  errorCode?: string;
  reason?: string;
  version?: string;
  promoted?: boolean;
  candidateMrr?: number | null;
  activeMrr?: number | null;
  changedEdges?: number;
  timings?: Record<string, number>;
}

function toRecord(t: Record<string, unknown>): TrainingRunRecord {
  return {
    id: t.id as string,
    status: t.status as RunStatus,
    trigger: String(t.trigger ?? ''),
    phase: stringOrNull(t.phase),
    epoch: numberOrNull(t.epoch),
    epochs: numberOrNull(t.epochs),
    loss: numberOrNull(t.loss),
    validMrr: numberOrNull(t.validMrr),
    etaSeconds: numberOrNull(t.etaSeconds),
    startedAt: isoTime(t.startedAt) as string,
    endedAt: isoTime(t.endedAt),
    error: stringOrNull(t.error),
    errorCode: stringOrNull(t.errorCode),
    reason: stringOrNull(t.reason),
    version: stringOrNull(t.version),
    promoted: typeof t.promoted === 'boolean' ? t.promoted : null,
    candidateMrr: numberOrNull(t.candidateMrr),
    activeMrr: numberOrNull(t.activeMrr),
    changedEdges: numberOrNull(t.changedEdges),
    timings: parseJson(t.timings) as Record<string, number> | null,
  };
}

/**
 * Records a new running job and, in the same transaction, consumes every pending retraining
 * request of the scope (the job serves them all). Returns how many it consumed.
 */
export async function startTrainingRun(
  db: Database,
  run: { id: string; trigger: string; holder: string },
  scope = DEFAULT_SCOPE,
): Promise<{ record: TrainingRunRecord; requestsConsumed: number }> {
  return db.write(async (tx) => {
    const created = await tx.run(
      `CREATE (t:TrainingRun {id: $id, scope: $scope, status: 'running', trigger: $trigger,
         holder: $holder, phase: 'start', startedAt: timestamp()})
       RETURN properties(t) AS t`,
      { ...run, scope },
    );
    const consumed = await tx.run(
      `MATCH (q:RetrainRequest {scope: $scope}) WHERE q.consumedAt IS NULL
       SET q.consumedAt = timestamp(), q.runId = $id
       RETURN count(q) AS n`,
      { id: run.id, scope },
    );
    return {
      record: toRecord(created.records[0]?.get('t') as Record<string, unknown>),
      requestsConsumed: Number(consumed.records[0]?.get('n') ?? 0),
    };
  });
}

/**
 * Progress of a running job; fields left out keep their value. The node's write lock is taken
 * before its status is read: a write waiting on the run's end would otherwise land after it,
 * on a run that no longer runs (a lost update under read-committed isolation).
 */
export async function updateRunProgress(
  db: Database,
  id: string,
  progress: RunProgress,
): Promise<void> {
  const fields = Object.fromEntries(Object.entries(progress).filter(([, v]) => v !== undefined));
  await db.write((tx) =>
    tx.run(
      `MATCH (t:TrainingRun {id: $id})
       SET t._lock = true
       REMOVE t._lock
       WITH t WHERE t.status = 'running'
       SET t += $fields, t.updatedAt = timestamp()`,
      { id, fields },
    ),
  );
}

/**
 * Ends a run; only a running run changes (an orphan already marked stays as marked). With
 * `overInterrupted`, a run already marked `interrupted` changes too: a job that lost its lease
 * knows why it ended better than the job that took the lease over and marked its run.
 */
export async function finishTrainingRun(
  db: Database,
  id: string,
  outcome: RunOutcome,
  options: { overInterrupted?: boolean } = {},
): Promise<void> {
  const { timings, ...rest } = outcome;
  const fields: Record<string, unknown> = Object.fromEntries(
    Object.entries(rest).filter(([, v]) => v !== undefined),
  );
  if (timings) fields.timings = JSON.stringify(timings);
  await db.write((tx) =>
    tx.run(
      `MATCH (t:TrainingRun {id: $id})
       WHERE t.status = 'running' OR ($overInterrupted AND t.status = 'interrupted')
       SET t += $fields, t.endedAt = timestamp(), t.etaSeconds = null`,
      { id, fields, overInterrupted: options.overInterrupted === true },
    ),
  );
}

/**
 * Marks the scope's running runs `interrupted`: their jobs are gone. Call it only while holding
 * the lease (no other job can be running then) or with the ids of runs known to be dead.
 */
export async function markInterruptedRuns(
  db: Database,
  options: { ids?: string[]; reason: string },
  scope = DEFAULT_SCOPE,
): Promise<number> {
  return db.write(async (tx) => {
    const result = await tx.run(
      `MATCH (t:TrainingRun {scope: $scope, status: 'running'})
       WHERE $ids IS NULL OR t.id IN $ids
       SET t.status = 'interrupted', t.endedAt = timestamp(), t.error = $reason,
           t.etaSeconds = null
       RETURN count(t) AS n`,
      { scope, ids: options.ids ?? null, reason: options.reason },
    );
    return Number(result.records[0]?.get('n') ?? 0);
  });
}

export interface RunPage {
  items: TrainingRunRecord[];
  /** Pass as `after` for the next page; null when the page is empty. */
  endCursor: string | null;
  hasMore: boolean;
}

function encodeCursor(t: { startedAt: number; id: string }): string {
  return Buffer.from(JSON.stringify([t.startedAt, t.id])).toString('base64url');
}

function decodeCursor(cursor: string): { startedAt: number; id: string } {
  try {
    const [startedAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [
      unknown,
      unknown,
    ];
    if (typeof startedAt === 'number' && typeof id === 'string') return { startedAt, id };
  } catch {
    // reported below
  }
  throw new KgcError(ErrorCode.BAD_USER_INPUT, `"${cursor}" is not a cursor from a previous page.`);
}

/** Runs newest first, `first` at a time; `after` is the previous page's `endCursor`. */
export async function listTrainingRuns(
  db: Database,
  page: { first: number; after?: string | null },
  scope = DEFAULT_SCOPE,
): Promise<RunPage> {
  if (!Number.isInteger(page.first) || page.first < 1 || page.first > 1000) {
    throw new KgcError(ErrorCode.BAD_USER_INPUT, '`first` must be an integer from 1 to 1000.');
  }
  const after = page.after ? decodeCursor(page.after) : null;
  return db.read(async (tx) => {
    const result = await tx.run(
      `MATCH (t:TrainingRun {scope: $scope})
       WHERE $after IS NULL OR t.startedAt < $after.startedAt
          OR (t.startedAt = $after.startedAt AND t.id < $after.id)
       RETURN properties(t) AS t ORDER BY t.startedAt DESC, t.id DESC LIMIT $limit`,
      { scope, after, limit: neo4j.int(page.first + 1) },
    );
    const rows = result.records.map((r) => r.get('t') as Record<string, unknown>);
    const hasMore = rows.length > page.first;
    const items = rows.slice(0, page.first);
    const last = items[items.length - 1];
    return {
      items: items.map(toRecord),
      endCursor: last
        ? encodeCursor({ startedAt: last.startedAt as number, id: last.id as string })
        : null,
      hasMore,
    };
  });
}
