import os from 'node:os';
import path from 'node:path';
import { Cron } from 'croner';
import { ErrorCode, KgcError } from '../errors';
import { ApiKeyEntry, parseApiKeys } from './api-keys';
import {
  Env,
  readBoolean,
  readDuration,
  readEnum,
  readList,
  readInt,
  readMemorySize,
  readOptionalString,
  readString,
  readUri,
} from './env-readers';
import { FoldInConfig, readFoldIn } from './fold-in-config';
import { readTopKIndex, TopKIndexConfig } from './top-k-index-config';
import { readModelStore, S3StoreConfig } from './model-store-config';

/** An external Neo4j (server, Aura, cluster) named by NEO4J_URI; nothing is started locally. */
export interface ExternalNeo4jConfig {
  kind: 'external';
  uri: string;
  user: string;
  password: string;
  database: string;
}

/** The embedded default: a local Neo4j from Maven Central jars, managed by `kgc neo4j`. */
export interface LocalNeo4jConfig {
  kind: 'local';
  database: string;
  /** Bolt port of the local instance; 0 picks a free port at start. */
  boltPort: number;
  heap: string;
  pageCache: string;
}

export interface DatabaseClientConfig {
  /** How long the driver keeps retrying a transaction on transient errors. */
  maxRetrySeconds: number;
  connectTimeoutMs: number;
  /**
   * The time budget of one transaction, retries included, enforced by the server: a write still
   * running then is rolled back (DATABASE_TIMEOUT). Absent: 120 s.
   */
  txTimeoutMs?: number;
}

/** Who may call the API and what a request may cost (design.md, Security). */
export interface ApiConfig {
  /** Empty: anonymous reads, every mutation refused. */
  keys: ApiKeyEntry[];
  /** With keys configured, whether reads without a key are allowed. */
  anonymousReads: boolean;
  /** Stack traces and internal messages in error responses. Never in production. */
  debug: boolean;
  maxBodyBytes: number;
  maxQueryDepth: number;
  maxQueryTokens: number;
  maxAliases: number;
  /** Most cost units one operation may ask for (src/resolvers/query-cost.ts), checked before any work. */
  maxQueryCost: number;
  introspection: boolean;
  /**
   * The API's budget for one database call: the server rolls back a transaction still running
   * then (DATABASE_TIMEOUT); a database that does not answer at all trips the breaker.
   */
  dbTimeoutMs: number;
  /** Origins allowed by CORS; empty: no CORS headers (same-origin and non-browser clients). */
  corsOrigins: string[];
}

/**
 * What a slow or broken client may hold (docs/api.md, Operations): a request's headers and
 * whole body must arrive within their timeouts, an idle keep-alive connection is closed, and
 * connections past the limit are dropped as they open.
 */
export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/** The limits a server gets when none are given (tests that call listen() directly). */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
};

export interface Config {
  neo4j: ExternalNeo4jConfig | LocalNeo4jConfig;
  client: DatabaseClientConfig;
  /** Per-project state: local Neo4j instances, model versions. Git-ignored. */
  stateDir: string;
  /** Per-user cache that outlives clones: the assembled Neo4j home. */
  cacheDir: string;
  javaHome: string | undefined;
  /** The model `kgc serve` loads when no --model is given. */
  modelDir: string | undefined;
  http: { host: string; port: number } & HttpLimits;
  api: ApiConfig;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  lifecycle: LifecycleConfig;
  foldIn: FoldInConfig;
  topKIndex: TopKIndexConfig;
  /**
   * How long `/readyz` of `kgc serve` waits for the start-up work that would compete with
   * serving (src/server/warm-up.ts, fold-in, an approximate index); past it the server says
   * ready and the log says what is still running. 0: no wait.
   */
  readyMaxWaitMs: number;
}

/** Model versions, their registry and the retraining worker (docs/lifecycle.md). */
export interface LifecycleConfig {
  /**
   * Where model versions are written and loaded from, one directory each: the store itself, or
   * with `remoteModelStore` this machine's cache of it.
   */
  modelStore: string;
  /** The object store every machine shares (KGC_MODEL_STORE=s3://...); undefined: none. */
  remoteModelStore: S3StoreConfig | undefined;
  /**
   * Separates registries that share one Neo4j database (versions, runs, lease, requests are
   * tagged with it): several deployments on one database, or tests on a shared server.
   */
  registryScope: string;
  /** Cron expression (croner syntax, seconds field optional) of scheduled retraining. */
  retrainCron: string | undefined;
  /**
   * Cron expression of scheduled full retrains (a fresh init); the other runs warm-start from
   * the active version's weights.
   */
  fullRetrainCron: string | undefined;
  /**
   * A scheduled run trains when at least this many edges changed (or `retrainMinNewEntities`
   * new entities arrived) since the active version, and is skipped otherwise; 0: off.
   */
  retrainMinNewEdges: number;
  /** A scheduled run trains when at least this many new entities arrived; 0: off. */
  retrainMinNewEntities: number;
  /** Wall-clock budget of each scheduled or requested job's training (`--time-budget`). */
  retrainTimeBudgetSeconds: number | undefined;
  /** Where training steps run (`--device`): a hardware GPU when present (`auto`), `cpu` or `gpu`. */
  trainDevice: TrainDevice;
  /** Train on these relation types only; undefined = all. */
  retrainRelations: string[] | undefined;
  /** How often the worker looks for retraining requests. */
  requestPollSeconds: number;
  /** A job's lease expires this long after its last renewal (its holder died). */
  leaseSeconds: number;
  /** How often `kgc serve` checks the registry for a newly promoted (or rolled back) version. */
  modelPollSeconds: number;
  /**
   * How many versions stay on disk after a publish or promotion; the active version and the
   * rollback target are always among them (docs/lifecycle.md, "Retention").
   */
  modelKeep: number;
  /**
   * Suggestions kept per relation and direction after each promotion and by `kgc suggest`
   * (the review queue's items; docs/lifecycle.md, "Suggestions").
   */
  suggestionsPerRelation: number;
}

/** `auto` picks a hardware GPU when the engine was built with its GPU backend and one is present. */
export const TRAIN_DEVICES = ['auto', 'cpu', 'gpu'] as const;
export type TrainDevice = (typeof TRAIN_DEVICES)[number];

const NEO4J_SCHEMES = ['bolt', 'bolt+s', 'bolt+ssc', 'neo4j', 'neo4j+s', 'neo4j+ssc'] as const;

function readNeo4j(env: Env): Config['neo4j'] {
  const database = readString(env, 'NEO4J_DATABASE', 'neo4j');
  const uri = readUri(env, 'NEO4J_URI', NEO4J_SCHEMES, 'NEO4J_USER and NEO4J_PASSWORD');
  if (uri !== undefined) {
    const password = readOptionalString(env, 'NEO4J_PASSWORD');
    if (password === undefined) {
      throw new KgcError(
        ErrorCode.INVALID_CONFIG,
        'Missing NEO4J_PASSWORD: it is required when NEO4J_URI is set.',
      );
    }
    return {
      kind: 'external',
      uri,
      user: readString(env, 'NEO4J_USER', 'neo4j'),
      password,
      database,
    };
  }
  return {
    kind: 'local',
    database,
    boltPort: readInt(env, 'KGC_NEO4J_BOLT_PORT', 7687, { min: 0, max: 65535 }),
    heap: readMemorySize(env, 'KGC_NEO4J_HEAP', '1g'),
    pageCache: readMemorySize(env, 'KGC_NEO4J_PAGECACHE', '512m'),
  };
}

function readApi(env: Env): ApiConfig {
  return {
    keys: parseApiKeys(env.KGC_API_KEYS),
    anonymousReads: readBoolean(env, 'KGC_ANONYMOUS_READS', false),
    debug: readBoolean(env, 'KGC_DEBUG', false),
    maxBodyBytes: readInt(env, 'KGC_MAX_BODY_BYTES', 1024 * 1024, { min: 1024, max: 64 * 2 ** 20 }),
    maxQueryDepth: readInt(env, 'KGC_MAX_QUERY_DEPTH', 10, { min: 2, max: 100 }),
    maxQueryTokens: readInt(env, 'KGC_MAX_QUERY_TOKENS', 2000, { min: 50, max: 100_000 }),
    maxAliases: readInt(env, 'KGC_MAX_ALIASES', 30, { min: 1, max: 1000 }),
    maxQueryCost: readInt(env, 'KGC_MAX_QUERY_COST', 20_000, { min: 100, max: 100_000_000 }),
    introspection: readBoolean(env, 'KGC_INTROSPECTION', true),
    dbTimeoutMs: readInt(env, 'KGC_API_DB_TIMEOUT_MS', 10_000, { min: 100, max: 600_000 }),
    corsOrigins: readList(env, 'KGC_CORS_ORIGINS'),
  };
}

function readHttpLimits(env: Env): HttpLimits {
  const d = DEFAULT_HTTP_LIMITS;
  const ms = { min: 100, max: 3_600_000 };
  const limits: HttpLimits = {
    headersTimeoutMs: readInt(env, 'KGC_HTTP_HEADERS_TIMEOUT_MS', d.headersTimeoutMs, ms),
    requestTimeoutMs: readInt(env, 'KGC_HTTP_REQUEST_TIMEOUT_MS', d.requestTimeoutMs, ms),
    keepAliveTimeoutMs: readInt(env, 'KGC_HTTP_KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs, ms),
    maxConnections: readInt(env, 'KGC_HTTP_MAX_CONNECTIONS', d.maxConnections, {
      min: 1,
      max: 1_000_000,
    }),
  };
  // Node refuses a header timeout longer than the whole request's (the headers are part of it).
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new KgcError(
      ErrorCode.INVALID_CONFIG,
      `Invalid KGC_HTTP_HEADERS_TIMEOUT_MS=${limits.headersTimeoutMs}: it must not exceed ` +
        `KGC_HTTP_REQUEST_TIMEOUT_MS=${limits.requestTimeoutMs} (the headers are part of the request).`,
    );
  }
  return limits;
}

function readCron(env: Env, name: string): string | undefined {
  const value = readOptionalString(env, name);
  if (value === undefined) return undefined;
  try {
    new Cron(value, { paused: true }).stop();
  } catch (error) {
    throw new KgcError(
      ErrorCode.INVALID_CONFIG,
      `Invalid ${name}=${JSON.stringify(value)}: expected a cron expression such as "0 3 * * *" ` +
        `(${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  return value;
}

/** A comma-separated list, or undefined when unset or empty (meaning "all"). */
function readOptionalList(env: Env, name: string): string[] | undefined {
  const items = readList(env, name);
  return items.length > 0 ? items : undefined;
}

function readLifecycle(env: Env, stateDir: string, cwd: string): LifecycleConfig {
  const store = readModelStore(env, stateDir, cwd);
  return {
    modelStore: store.dir,
    remoteModelStore: store.remote,
    registryScope: readString(env, 'KGC_REGISTRY_SCOPE', 'default'),
    retrainCron: readCron(env, 'KGC_RETRAIN_CRON'),
    fullRetrainCron: readCron(env, 'KGC_FULL_RETRAIN_CRON'),
    retrainTimeBudgetSeconds: readDuration(env, 'KGC_RETRAIN_TIME_BUDGET'),
    trainDevice: readEnum(env, 'KGC_TRAIN_DEVICE', 'auto', TRAIN_DEVICES),
    retrainMinNewEdges: readInt(env, 'KGC_RETRAIN_MIN_NEW_EDGES', 0, {
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    }),
    retrainMinNewEntities: readInt(env, 'KGC_RETRAIN_MIN_NEW_ENTITIES', 0, {
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
    }),
    retrainRelations: readOptionalList(env, 'KGC_RETRAIN_RELATIONS'),
    requestPollSeconds: readInt(env, 'KGC_RETRAIN_POLL_SECONDS', 5, { min: 1, max: 3600 }),
    leaseSeconds: readInt(env, 'KGC_JOB_LEASE_SECONDS', 60, { min: 2, max: 86400 }),
    modelPollSeconds: readInt(env, 'KGC_MODEL_POLL_SECONDS', 2, { min: 1, max: 3600 }),
    modelKeep: readInt(env, 'KGC_MODEL_KEEP', 10, { min: 1, max: 100000 }),
    suggestionsPerRelation: readInt(env, 'KGC_SUGGESTIONS_PER_RELATION', 1000, {
      min: 0,
      max: 100000,
    }),
  };
}

/**
 * Reads and validates the whole configuration once. A wrong value throws an INVALID_CONFIG
 * KgcError naming the variable and what it expects.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const stateDir = path.resolve(cwd, readString(env, 'KGC_STATE_DIR', '.kgc'));
  return {
    neo4j: readNeo4j(env),
    client: {
      maxRetrySeconds: readInt(env, 'KGC_DB_RETRY_SECONDS', 15, { min: 0, max: 600 }),
      connectTimeoutMs: readInt(env, 'KGC_DB_CONNECT_TIMEOUT_MS', 5000, { min: 100, max: 120000 }),
      txTimeoutMs: readInt(env, 'KGC_DB_TX_TIMEOUT_MS', 120_000, { min: 100, max: 3_600_000 }),
    },
    stateDir,
    cacheDir: path.resolve(
      readString(env, 'KGC_CACHE_DIR', path.join(os.homedir(), '.cache', 'kgc')),
    ),
    javaHome: readOptionalString(env, 'JAVA_HOME'),
    modelDir: readOptionalString(env, 'KGC_MODEL_DIR'),
    http: {
      host: readString(env, 'KGC_HTTP_HOST', '127.0.0.1'),
      port: readInt(env, 'KGC_HTTP_PORT', 4000, { min: 0, max: 65535 }),
      ...readHttpLimits(env),
    },
    api: readApi(env),
    logLevel: readEnum(env, 'KGC_LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error'] as const),
    lifecycle: readLifecycle(env, stateDir, cwd),
    foldIn: readFoldIn(env),
    topKIndex: readTopKIndex(env),
    readyMaxWaitMs: 1000 * readInt(env, 'KGC_READY_MAX_WAIT_SECONDS', 60, { min: 0, max: 86400 }),
  };
}
