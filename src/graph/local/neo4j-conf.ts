import path from 'node:path';

export interface InstanceSettings {
  /** The instance's own folder: conf/, data/, logs/, run/ live under it. */
  dir: string;
  boltPort: number;
  heap: string;
  pageCache: string;
}

/** JVM flags of the 5.x default neo4j.conf, less AlwaysPreTouch (slow starts on small heaps). */
const JVM_FLAGS = [
  '-XX:+UseG1GC',
  '-XX:-OmitStackTraceInFastThrow',
  '-XX:+UnlockExperimentalVMOptions',
  '-XX:+TrustFinalNonStaticFields',
  '-XX:+DisableExplicitGC',
  '-Djdk.nio.maxCachedBufferSize=1024',
  '-Dio.netty.tryReflectionSetAccessible=true',
  '-Djdk.tls.ephemeralDHKeySize=2048',
  '-Djdk.tls.rejectClientInitiatedRenegotiation=true',
  '--add-opens=java.base/java.nio=ALL-UNNAMED',
  '--add-opens=java.base/java.io=ALL-UNNAMED',
  '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
  '--enable-native-access=ALL-UNNAMED',
  '-Dlog4j2.disable.jmx=true',
];

/**
 * neo4j.conf for a local instance: Bolt on loopback only, HTTP off, auth on, every directory
 * inside the instance folder. Strict validation is on, so a misspelt key aborts start-up.
 */
export function renderNeo4jConf(settings: InstanceSettings): string {
  const dir = (name: string) => path.join(settings.dir, name);
  const lines = [
    'server.default_listen_address=127.0.0.1',
    `server.bolt.listen_address=127.0.0.1:${settings.boltPort}`,
    `server.bolt.advertised_address=127.0.0.1:${settings.boltPort}`,
    'server.http.enabled=false',
    'server.https.enabled=false',
    'dbms.security.auth_enabled=true',
    `server.directories.data=${dir('data')}`,
    `server.directories.logs=${dir('logs')}`,
    `server.directories.run=${dir('run')}`,
    `server.directories.import=${dir('import')}`,
    `server.directories.plugins=${dir('plugins')}`,
    `server.directories.transaction.logs.root=${path.join(dir('data'), 'transactions')}`,
    `server.memory.heap.initial_size=${settings.heap}`,
    `server.memory.heap.max_size=${settings.heap}`,
    `server.memory.pagecache.size=${settings.pageCache}`,
    'dbms.usage_report.enabled=false',
    'db.tx_log.rotation.retention_policy=2 files',
    ...JVM_FLAGS.map((flag) => `server.jvm.additional=${flag}`),
  ];
  return `${lines.join('\n')}\n`;
}
