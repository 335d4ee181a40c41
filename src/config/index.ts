export { DEFAULT_HTTP_LIMITS, loadConfig, TRAIN_DEVICES } from './config';
export type { ApiConfig, Config, HttpLimits, DatabaseClientConfig, TrainDevice } from './config';
export type { FoldInConfig } from './fold-in-config';
export type { TopKIndexConfig } from './top-k-index-config';
export { describeModelStore, s3Url } from './model-store-config';
export type { S3StoreConfig } from './model-store-config';
export { API_ROLES } from './api-keys';
export type { ApiKeyEntry, ApiRole } from './api-keys';
export { parseDurationSeconds } from './env-readers';
