import os from 'node:os';
import path from 'node:path';
import { ErrorCode, KgcError } from '../errors';
import {
  Env,
  readEnum,
  readInt,
  readMemorySize,
  readOptionalString,
  readString,
  readUri,
} from './env-readers';

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
}

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
  http: { host: string; port: number };
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

const NEO4J_SCHEMES = ['bolt', 'bolt+s', 'bolt+ssc', 'neo4j', 'neo4j+s', 'neo4j+ssc'] as const;

function readNeo4j(env: Env): Config['neo4j'] {
  const database = readString(env, 'NEO4J_DATABASE', 'neo4j');
  const uri = readUri(env, 'NEO4J_URI', NEO4J_SCHEMES);
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

/**
 * Reads and validates the whole configuration once. A wrong value throws an INVALID_CONFIG
 * KgcError naming the variable and what it expects.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  return {
    neo4j: readNeo4j(env),
    client: {
      maxRetrySeconds: readInt(env, 'KGC_DB_RETRY_SECONDS', 15, { min: 0, max: 600 }),
      connectTimeoutMs: readInt(env, 'KGC_DB_CONNECT_TIMEOUT_MS', 5000, { min: 100, max: 120000 }),
    },
    stateDir: path.resolve(cwd, readString(env, 'KGC_STATE_DIR', '.kgc')),
    cacheDir: path.resolve(
      readString(env, 'KGC_CACHE_DIR', path.join(os.homedir(), '.cache', 'kgc')),
    ),
    javaHome: readOptionalString(env, 'JAVA_HOME'),
    modelDir: readOptionalString(env, 'KGC_MODEL_DIR'),
    http: {
      host: readString(env, 'KGC_HTTP_HOST', '127.0.0.1'),
      port: readInt(env, 'KGC_HTTP_PORT', 4000, { min: 0, max: 65535 }),
    },
    logLevel: readEnum(env, 'KGC_LOG_LEVEL', 'info', ['debug', 'info', 'warn', 'error'] as const),
  };
}
