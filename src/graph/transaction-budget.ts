import { ManagedTransaction, Neo4jError } from 'neo4j-driver';

/** The time budget of one transaction when the config names none. */
export const DEFAULT_TX_TIMEOUT_MS = 120_000;

/**
 * How late past its timeout a server may report a timed-out transaction: Neo4j's transaction
 * monitor looks every 2 s (db.transaction.monitor.check.interval), plus a round trip. A client
 * that waits this long past the budget hears the server's verdict instead of guessing.
 */
export const SERVER_TIMEOUT_GRACE_MS = 3_000;

/** The driver's codes for a database that cannot be reached (it retries those too). */
const UNAVAILABLE = new Set(['ServiceUnavailable', 'SessionExpired']);

/**
 * When a failed attempt may be tried again. Transient errors (a deadlock, a leader switch) are
 * retried while the call's budget lasts; an unreachable database only for `unavailableMs`
 * (KGC_DB_RETRY_SECONDS; 0 on the API, whose breaker fails fast instead).
 */
export interface RetryPolicy {
  budgetMs: number;
  unavailableMs: number;
}

export function mayRetry(error: unknown, policy: RetryPolicy, nextAttemptAtMs: number): boolean {
  if (!(error instanceof Neo4jError) || !error.retryable) return false;
  const limit = UNAVAILABLE.has(error.code)
    ? Math.min(policy.budgetMs, policy.unavailableMs)
    : policy.budgetMs;
  return nextAttemptAtMs < limit;
}

/** Short first waits (a deadlock clears at once), doubling to 1 s, with 20 % jitter. */
export function backoffMs(attempt: number): number {
  const base = Math.min(1000, 50 * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + 0.4 * Math.random()));
}

/** The server-side timeout of an attempt: what is left of the budget (0 would mean none). */
export function attemptTimeoutMs(budgetMs: number, elapsedMs: number): number {
  return Math.max(1, Math.ceil(budgetMs - elapsedMs));
}

/**
 * `work` for one driver attempt only: retries are ours, each with the budget left as its
 * timeout. The driver (maxTransactionRetryTime 0) still retries a failure reported within the
 * same millisecond; that second call rethrows the first failure instead of running again.
 */
export function oneAttempt<T>(
  work: (tx: ManagedTransaction) => Promise<T>,
): (tx: ManagedTransaction) => Promise<T> {
  let ran = false;
  let failure: unknown;
  return async (tx) => {
    if (ran) throw failure ?? new Error('The commit failed with a transient error.');
    ran = true;
    try {
      return await work(tx);
    } catch (error) {
      failure = error;
      throw error;
    }
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
