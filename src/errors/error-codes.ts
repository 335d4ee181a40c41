/** Stable error codes: they reach clients as GraphQL `extensions.code` and CLI messages. */
export const ErrorCode = {
  INVALID_CONFIG: 'INVALID_CONFIG',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  /** A request that is not GraphQL over HTTP at all (malformed JSON, wrong method). */
  BAD_REQUEST: 'BAD_REQUEST',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** A request whose estimated cost (aliases x queries x k) exceeds KGC_MAX_QUERY_COST. */
  QUERY_TOO_COSTLY: 'QUERY_TOO_COSTLY',
  NOT_FOUND: 'NOT_FOUND',
  /** No such entity in the graph. */
  ENTITY_NOT_FOUND: 'ENTITY_NOT_FOUND',
  /** In the graph, but added after the serving model was trained. */
  ENTITY_NOT_IN_MODEL: 'ENTITY_NOT_IN_MODEL',
  UNKNOWN_RELATION: 'UNKNOWN_RELATION',
  /** An accept of an edge that is already a fact (ingested, not a prediction). */
  EDGE_EXISTS: 'EDGE_EXISTS',
  EDGE_NOT_FOUND: 'EDGE_NOT_FOUND',
  /** Only accepted predictions can be reverted; ingested edges stay. */
  EDGE_NOT_REVERTIBLE: 'EDGE_NOT_REVERTIBLE',
  REJECTION_NOT_FOUND: 'REJECTION_NOT_FOUND',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  DATABASE_UNAVAILABLE: 'DATABASE_UNAVAILABLE',
  DATABASE_AUTH_FAILED: 'DATABASE_AUTH_FAILED',
  /**
   * A database call ran out of its time budget: the server rolled the transaction back (nothing
   * was written), or Neo4j did not answer at all within the budget plus a grace period.
   */
  DATABASE_TIMEOUT: 'DATABASE_TIMEOUT',
  DATABASE_ERROR: 'DATABASE_ERROR',
  CONSTRAINT_VIOLATION: 'CONSTRAINT_VIOLATION',
  MIGRATIONS_PENDING: 'MIGRATIONS_PENDING',
  MIGRATION_CHECKSUM_MISMATCH: 'MIGRATION_CHECKSUM_MISMATCH',
  MIGRATION_INVALID: 'MIGRATION_INVALID',
  MIGRATION_LOCKED: 'MIGRATION_LOCKED',
  /** A runner stopped by a signal between statements; its lock was released. */
  MIGRATION_STOPPED: 'MIGRATION_STOPPED',
  NEO4J_SETUP_FAILED: 'NEO4J_SETUP_FAILED',
  /** A triple file has bad lines (strict ingest), or an option names an unusable format. */
  INGEST_INVALID_INPUT: 'INGEST_INVALID_INPUT',
  /** An input file is missing or cannot be read. */
  FILE_NOT_FOUND: 'FILE_NOT_FOUND',
  /** An export could not write its files (disk full, not writable); nothing was left half-written. */
  EXPORT_WRITE_FAILED: 'EXPORT_WRITE_FAILED',
  ENGINE_NOT_BUILT: 'ENGINE_NOT_BUILT',
  ENGINE_ERROR: 'ENGINE_ERROR',
  MODEL_INVALID: 'MODEL_INVALID',
  /** The remote model store (KGC_MODEL_STORE=s3://...) cannot be reached or failed to answer. */
  MODEL_STORE_UNAVAILABLE: 'MODEL_STORE_UNAVAILABLE',
  /** The remote model store refused the credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY). */
  MODEL_STORE_AUTH_FAILED: 'MODEL_STORE_AUTH_FAILED',
  /** The remote model store answered with an error other than the two above. */
  MODEL_STORE_ERROR: 'MODEL_STORE_ERROR',
  MODEL_NOT_READY: 'MODEL_NOT_READY',
  TRAINING_ABORTED: 'TRAINING_ABORTED',
  /** The training device asked for is missing or failed (no GPU, an engine built without it). */
  DEVICE_UNAVAILABLE: 'DEVICE_UNAVAILABLE',
  /** Another training job holds the lease (one job at a time across workers and `kgc train`). */
  JOB_LOCKED: 'JOB_LOCKED',
  /** A training job's lease expired or was taken over: it stopped, and promoted nothing. */
  JOB_LEASE_LOST: 'JOB_LEASE_LOST',
  /**
   * The active version changed while a job ran (an operator's rollback or promote): the job
   * does not promote over it.
   */
  ACTIVE_VERSION_CHANGED: 'ACTIVE_VERSION_CHANGED',
  /**
   * A review queue cursor of other suggestions than those served now (another model version, or
   * suggestions recomputed since): start again without `after`.
   */
  STALE_CURSOR: 'STALE_CURSOR',
  INTERNAL: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
