import { Neo4jError } from 'neo4j-driver';
import { ErrorCode, KgcError } from '../errors';

function codeOf(error: unknown): string | undefined {
  if (error instanceof Neo4jError) return error.code;
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** The time budget of the failed call, and whether it was spent when the error came. */
export interface Budget {
  ms: number;
  spent: boolean;
}

/**
 * The server's transaction timeout: `TransactionTimedOut` (db.transaction.timeout) and
 * `TransactionTimedOutClientConfiguration` (the timeout this client sets). A transaction
 * terminated while it waited for a lock reports `LockClientStopped` (or `Terminated`), which
 * is the timeout when the budget was spent (otherwise an operator or a shutdown).
 */
export function isTransactionTimeout(code: string, budget?: Budget): boolean {
  if (code.startsWith('Neo.ClientError.Transaction.TransactionTimedOut')) return true;
  const terminated = /^Neo\.\w+\.Transaction\.(LockClientStopped|Terminated)$/.test(code);
  return terminated && budget?.spent === true;
}

/**
 * Maps a Neo4j driver error to the product's error codes; KgcErrors pass through. `budget`:
 * the call's time budget, named in a DATABASE_TIMEOUT message.
 */
export function mapNeo4jError(error: unknown, target: string, budget?: Budget): KgcError {
  if (error instanceof KgcError) return error;
  const code = codeOf(error) ?? '';
  const detail = error instanceof Error ? error.message : String(error);
  if (isTransactionTimeout(code, budget)) {
    // No driver text: the message is safe for clients and says what happened to the data.
    const within = budget === undefined ? '' : ` within ${budget.ms} ms`;
    return new KgcError(
      ErrorCode.DATABASE_TIMEOUT,
      `The database did not finish the transaction${within}; the server rolled it back, so nothing ` +
        'of it was written. Retry it; a batch that keeps timing out needs to be smaller or the ' +
        'timeout larger (KGC_DB_TX_TIMEOUT_MS, KGC_API_DB_TIMEOUT_MS for the API).',
      { cause: error },
    );
  }
  if (code === 'ServiceUnavailable' || code === 'SessionExpired' || code === 'ECONNREFUSED') {
    return new KgcError(
      ErrorCode.DATABASE_UNAVAILABLE,
      `Neo4j at ${target} is unavailable (${detail.split('\n')[0]}). ` +
        'Start it (`npx kgc neo4j start`) or check NEO4J_URI.',
      { cause: error },
    );
  }
  if (code.startsWith('Neo.ClientError.Security.')) {
    return new KgcError(
      ErrorCode.DATABASE_AUTH_FAILED,
      `Neo4j at ${target} refused the credentials: check NEO4J_USER and NEO4J_PASSWORD.`,
      { cause: error },
    );
  }
  if (code === 'Neo.ClientError.Schema.ConstraintValidationFailed') {
    return new KgcError(ErrorCode.CONSTRAINT_VIOLATION, detail, { cause: error });
  }
  if (code === 'Neo.ClientError.Database.DatabaseNotFound') {
    return new KgcError(
      ErrorCode.DATABASE_UNAVAILABLE,
      `Neo4j at ${target} has no such database: check NEO4J_DATABASE.`,
      { cause: error },
    );
  }
  return new KgcError(ErrorCode.DATABASE_ERROR, `Neo4j error ${code}: ${detail}`, { cause: error });
}
