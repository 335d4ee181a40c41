export { loadConfig } from './config';
export type { Config, DatabaseClientConfig, ExternalNeo4jConfig, LocalNeo4jConfig } from './config';
export type { Env } from './env-readers';
