import { describeModelStore, loadConfig } from '../../../src/config';

const S3 = {
  KGC_MODEL_STORE: 's3://kgc-models/prod/kg1/',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'very-secret-value',
  AWS_REGION: 'eu-west-1',
};

function configError(env: Record<string, string>): Error {
  try {
    loadConfig(env, '/srv/app');
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected loadConfig to throw');
}

describe('the model store setting (KGC_MODEL_STORE)', () => {
  it('is a directory by default, or the one named; no remote store', () => {
    expect(loadConfig({}, '/srv/app').lifecycle).toMatchObject({
      modelStore: '/srv/app/.kgc/models',
      remoteModelStore: undefined,
    });
    expect(
      loadConfig({ KGC_MODEL_STORE: '/mnt/shared/models' }, '/srv/app').lifecycle,
    ).toMatchObject({
      modelStore: '/mnt/shared/models',
      remoteModelStore: undefined,
    });
  });

  it('reads s3://bucket/prefix with the standard AWS variables, cached under the state dir', () => {
    const { lifecycle } = loadConfig(S3, '/srv/app');
    expect(lifecycle.modelStore).toBe('/srv/app/.kgc/models');
    expect(lifecycle.remoteModelStore).toEqual({
      bucket: 'kgc-models',
      prefix: 'prod/kg1',
      region: 'eu-west-1',
      endpoint: undefined,
      forcePathStyle: false,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'very-secret-value' },
    });
    expect(describeModelStore(lifecycle.modelStore, lifecycle.remoteModelStore)).toBe(
      's3://kgc-models/prod/kg1, cached in /srv/app/.kgc/models',
    );
  });

  it('takes an S3-compatible endpoint, path-style by default, and a cache directory', () => {
    const { lifecycle } = loadConfig(
      {
        ...S3,
        KGC_MODEL_STORE: 's3://kgc-models',
        AWS_REGION: '',
        AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:8333',
        AWS_SESSION_TOKEN: 'token',
        KGC_MODEL_CACHE: 'cache/models',
      },
      '/srv/app',
    );
    expect(lifecycle.modelStore).toBe('/srv/app/cache/models');
    expect(lifecycle.remoteModelStore).toMatchObject({
      bucket: 'kgc-models',
      prefix: '',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:8333',
      forcePathStyle: true,
      credentials: { sessionToken: 'token' },
    });
    expect(
      loadConfig(
        { ...S3, AWS_ENDPOINT_URL: 'https://minio.internal', KGC_S3_FORCE_PATH_STYLE: 'false' },
        '/srv/app',
      ).lifecycle.remoteModelStore,
    ).toMatchObject({ endpoint: 'https://minio.internal', forcePathStyle: false });
  });

  it('names the variable that is wrong or missing, never echoing the secret', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ ...S3, KGC_MODEL_STORE: 's3://Bad_Bucket/x' }, /KGC_MODEL_STORE.*not a bucket name/],
      [{ ...S3, KGC_MODEL_STORE: 's3://kgc-models/a//b' }, /KGC_MODEL_STORE.*between single/],
      [{ ...S3, KGC_MODEL_STORE: 's3://kgc-models/../x' }, /KGC_MODEL_STORE/],
      [{ ...S3, KGC_MODEL_STORE: 's3://kgc-models?x=1' }, /KGC_MODEL_STORE/],
      [{ ...S3, KGC_MODEL_STORE: 'gs://kgc-models/x' }, /KGC_MODEL_STORE.*scheme s3/],
      [{ ...S3, KGC_MODEL_STORE: 's3://AKID:very-secret-value@kgc-models' }, /carries credentials/],
      [{ ...S3, AWS_ACCESS_KEY_ID: '' }, /Missing AWS_ACCESS_KEY_ID: .*s3:\/\//],
      [{ ...S3, AWS_SECRET_ACCESS_KEY: '' }, /Missing AWS_SECRET_ACCESS_KEY/],
      [{ ...S3, AWS_REGION: '' }, /Missing AWS_REGION/],
      [{ ...S3, AWS_ENDPOINT_URL_S3: 'ftp://host' }, /AWS_ENDPOINT_URL_S3/],
      [{ ...S3, AWS_ENDPOINT_URL_S3: 'http://u:very-secret-value@host' }, /carries credentials/],
      [{ KGC_MODEL_CACHE: '/tmp/cache' }, /KGC_MODEL_CACHE.*not an s3:\/\/ URL/],
    ];
    for (const [env, message] of cases) {
      const error = configError(env);
      expect(error).toMatchObject({ code: 'INVALID_CONFIG' });
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('very-secret-value');
    }
  });
});
