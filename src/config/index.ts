export { loadConfig } from './config';
export type {
  ApiConfig,
  Config,
  LifecycleConfig,
  DatabaseClientConfig,
  ExternalNeo4jConfig,
  LocalNeo4jConfig,
} from './config';
export type { Env } from './env-readers';
export { API_ROLES } from './api-keys';
export type { ApiKeyEntry, ApiRole } from './api-keys';
