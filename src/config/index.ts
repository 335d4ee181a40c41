export { loadConfig } from './config';
export type {
  Config,
  LifecycleConfig,
  DatabaseClientConfig,
  ExternalNeo4jConfig,
  LocalNeo4jConfig,
} from './config';
export type { Env } from './env-readers';
