import type { S3StoreConfig } from '../../config';
import { ModelStore } from './model-store';
import { S3VersionMirror } from './s3/s3-version-mirror';

/**
 * The configured store (`config.lifecycle`): a directory, or with KGC_MODEL_STORE=s3://... the
 * shared object store behind this machine's cache directory.
 */
export function openModelStore(lifecycle: {
  modelStore: string;
  remoteModelStore: S3StoreConfig | undefined;
}): ModelStore {
  const { modelStore, remoteModelStore } = lifecycle;
  return new ModelStore(
    modelStore,
    remoteModelStore ? new S3VersionMirror(remoteModelStore) : undefined,
  );
}
