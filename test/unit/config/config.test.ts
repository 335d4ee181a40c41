import { loadConfig } from '../../../src/config';
import { ErrorCode, KgcError } from '../../../src/errors';

function errorOf(fn: () => unknown): KgcError {
  try {
    fn();
  } catch (error) {
    if (error instanceof KgcError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('loadConfig', () => {
  it('defaults to the local embedded Neo4j', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config.neo4j).toEqual({
      kind: 'local',
      database: 'neo4j',
      boltPort: 7687,
      heap: '1g',
      pageCache: '512m',
    });
    expect(config.stateDir).toBe('/srv/app/.kgc');
  });

  it('uses NEO4J_URI with its credentials and starts nothing', () => {
    const config = loadConfig({
      NEO4J_URI: 'neo4j+s://abc.databases.neo4j.io',
      NEO4J_USER: 'app',
      NEO4J_PASSWORD: 'secret',
      NEO4J_DATABASE: 'kg',
    });
    expect(config.neo4j).toEqual({
      kind: 'external',
      uri: 'neo4j+s://abc.databases.neo4j.io',
      user: 'app',
      password: 'secret',
      database: 'kg',
    });
  });

  it.each([
    ['KGC_NEO4J_BOLT_PORT', 'abc', /KGC_NEO4J_BOLT_PORT="abc".*integer from 0 to 65535/],
    ['KGC_NEO4J_BOLT_PORT', '70000', /KGC_NEO4J_BOLT_PORT="70000"/],
    ['KGC_LOG_LEVEL', 'loud', /KGC_LOG_LEVEL="loud".*one of debug, info, warn, error/],
    ['KGC_NEO4J_HEAP', 'lots', /KGC_NEO4J_HEAP="lots".*512m/],
    ['NEO4J_URI', 'http://localhost:7474', /NEO4J_URI=.*scheme bolt/],
    ['KGC_DB_RETRY_SECONDS', '-1', /KGC_DB_RETRY_SECONDS/],
    ['KGC_RETRAIN_CRON', 'every night', /KGC_RETRAIN_CRON="every night".*cron expression/],
    ['KGC_FULL_RETRAIN_CRON', 'sundays', /KGC_FULL_RETRAIN_CRON="sundays".*cron expression/],
    ['KGC_RETRAIN_MIN_NEW_EDGES', '-5', /KGC_RETRAIN_MIN_NEW_EDGES/],
    ['KGC_RETRAIN_MIN_NEW_ENTITIES', '-1', /KGC_RETRAIN_MIN_NEW_ENTITIES=.*integer/],
    ['KGC_RETRAIN_MIN_NEW_ENTITIES', 'ten', /KGC_RETRAIN_MIN_NEW_ENTITIES="ten"/],
    ['KGC_JOB_LEASE_SECONDS', '1', /KGC_JOB_LEASE_SECONDS/],
  ])('rejects %s=%s naming the variable', (name, value, message) => {
    const error = errorOf(() => loadConfig({ [name]: value, NEO4J_PASSWORD: 'x' }));
    expect(error.code).toBe(ErrorCode.INVALID_CONFIG);
    expect(error.message).toMatch(message);
  });

  it('requires NEO4J_PASSWORD with NEO4J_URI', () => {
    const error = errorOf(() => loadConfig({ NEO4J_URI: 'bolt://db:7687' }));
    expect(error.code).toBe(ErrorCode.INVALID_CONFIG);
    expect(error.message).toMatch(/NEO4J_PASSWORD/);
  });

  it('reads the API settings: keys, limits, CORS, debug', () => {
    const api = loadConfig({
      KGC_ANONYMOUS_READS: 'yes',
      KGC_DEBUG: 'true',
      KGC_MAX_BODY_BYTES: '2048',
      KGC_CORS_ORIGINS: 'https://a.example, https://b.example',
    }).api;
    expect(api).toMatchObject({
      keys: [],
      anonymousReads: true,
      debug: true,
      maxBodyBytes: 2048,
      corsOrigins: ['https://a.example', 'https://b.example'],
    });
    expect(() => loadConfig({ KGC_DEBUG: 'maybe' })).toThrow(
      /KGC_DEBUG="maybe": expected true or false/,
    );
    expect(() => loadConfig({ KGC_MAX_BODY_BYTES: '10' })).toThrow(/KGC_MAX_BODY_BYTES/);
  });

  it('reads the model lifecycle settings, with the store under the state dir by default', () => {
    expect(loadConfig({}, '/srv/app').lifecycle).toEqual({
      modelPollSeconds: 2,
      modelStore: '/srv/app/.kgc/models',
      registryScope: 'default',
      retrainCron: undefined,
      retrainMinNewEdges: 0,
      retrainMinNewEntities: 0,
      retrainRelations: undefined,
      requestPollSeconds: 5,
      leaseSeconds: 60,
      trainDevice: 'auto',
      modelKeep: 10,
      suggestionsPerRelation: 1000,
    });
    const set = loadConfig(
      {
        KGC_MODEL_STORE: 'models',
        KGC_REGISTRY_SCOPE: 'kg1',
        KGC_RETRAIN_CRON: '0 3 * * *',
        KGC_FULL_RETRAIN_CRON: '0 4 * * 0',
        KGC_RETRAIN_MIN_NEW_EDGES: '100',
        KGC_RETRAIN_MIN_NEW_ENTITIES: '25',
        KGC_RETRAIN_RELATIONS: 'a, b',
        KGC_RETRAIN_POLL_SECONDS: '2',
        KGC_JOB_LEASE_SECONDS: '30',
        KGC_MODEL_POLL_SECONDS: '7',
        KGC_TRAIN_DEVICE: 'gpu',
        KGC_MODEL_KEEP: '3',
      },
      '/srv/app',
    ).lifecycle;
    expect(set).toEqual({
      modelStore: '/srv/app/models',
      registryScope: 'kg1',
      retrainCron: '0 3 * * *',
      fullRetrainCron: '0 4 * * 0',
      retrainMinNewEdges: 100,
      retrainMinNewEntities: 25,
      retrainRelations: ['a', 'b'],
      requestPollSeconds: 2,
      leaseSeconds: 30,
      modelPollSeconds: 7,
      trainDevice: 'gpu',
      modelKeep: 3,
      suggestionsPerRelation: 1000,
    });
    for (const bad of ['0', '-1', '2.5', 'all']) {
      expect(() => loadConfig({ KGC_MODEL_KEEP: bad }, '/srv/app')).toThrow(
        /Invalid KGC_MODEL_KEEP=.*an integer from 1 to 100000/,
      );
    }
    expect(() => loadConfig({ KGC_TRAIN_DEVICE: 'tpu' }, '/srv/app')).toThrow(
      /KGC_TRAIN_DEVICE.*one of auto, cpu, gpu/,
    );
  });

  it('refuses a NEO4J_URI carrying credentials without echoing the password', () => {
    const secret = 'hunter2-S3cret';
    for (const uri of [
      `bolt://neo4j:${secret}@db.example:7687`,
      `neo4j+s://app:${secret}@abc.databases.neo4j.io`,
      `bolt://${secret}@db:7687`,
      // Not a parseable URL (port out of range): still masked in the message.
      `bolt://neo4j:${secret}@db:99999999`,
      // Not a Neo4j scheme: the credentials are refused first, the value never echoed.
      `http://neo4j:${secret}@db:7474`,
    ]) {
      const error = errorOf(() => loadConfig({ NEO4J_URI: uri, NEO4J_PASSWORD: 'x' }));
      expect(error.code).toBe(ErrorCode.INVALID_CONFIG);
      expect(error.message).toMatch(/NEO4J_URI/);
      expect(error.message).not.toContain(secret);
    }
    const carried = errorOf(() =>
      loadConfig({ NEO4J_URI: `bolt://neo4j:${secret}@db:7687`, NEO4J_PASSWORD: 'x' }),
    );
    expect(carried.message).toMatch(/credentials.*NEO4J_USER and NEO4J_PASSWORD/);
  });

  it('reads the HTTP limits for slow clients, with defaults', () => {
    expect(loadConfig({}).http).toEqual({
      host: '127.0.0.1',
      port: 4000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1000,
    });
    const set = loadConfig({
      KGC_HTTP_HEADERS_TIMEOUT_MS: '2000',
      KGC_HTTP_REQUEST_TIMEOUT_MS: '4000',
      KGC_HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
      KGC_HTTP_MAX_CONNECTIONS: '50',
    }).http;
    expect(set).toMatchObject({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 4000,
      keepAliveTimeoutMs: 1000,
      maxConnections: 50,
    });
    expect(() => loadConfig({ KGC_HTTP_MAX_CONNECTIONS: '0' })).toThrow(
      /KGC_HTTP_MAX_CONNECTIONS="0"/,
    );
    const inverted = errorOf(() =>
      loadConfig({ KGC_HTTP_HEADERS_TIMEOUT_MS: '5000', KGC_HTTP_REQUEST_TIMEOUT_MS: '1000' }),
    );
    expect(inverted.code).toBe(ErrorCode.INVALID_CONFIG);
    expect(inverted.message).toMatch(
      /KGC_HTTP_HEADERS_TIMEOUT_MS=5000.*KGC_HTTP_REQUEST_TIMEOUT_MS=1000/,
    );
  });
});
