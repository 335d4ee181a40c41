import { mapS3Error } from '../../../src/model/store/s3/s3-errors';
import { KgcError } from '../../../src/errors';

const AT = 's3://kgc-models/prod';

/** An error shaped as the SDK throws them (name, HTTP status in $metadata). */
function sdkError(name: string, status?: number, message = 'service text'): Error {
  const error = new Error(message);
  error.name = name;
  return Object.assign(error, { $metadata: { httpStatusCode: status } });
}

describe('S3 errors as the product reports them', () => {
  it.each([
    [
      'NoSuchBucket',
      404,
      'INVALID_CONFIG',
      /bucket of KGC_MODEL_STORE \(s3:\/\/kgc-models\/prod\) does not exist/,
    ],
    [
      'InvalidAccessKeyId',
      403,
      'MODEL_STORE_AUTH_FAILED',
      /AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY/,
    ],
    ['SignatureDoesNotMatch', 403, 'MODEL_STORE_AUTH_FAILED', /refused the credentials/],
    ['Forbidden', 403, 'MODEL_STORE_AUTH_FAILED', /HTTP 403/],
    ['InternalError', 500, 'MODEL_STORE_UNAVAILABLE', /unavailable while listing/],
    ['TimeoutError', undefined, 'MODEL_STORE_UNAVAILABLE', /TimeoutError/],
    ['InvalidRequest', 400, 'MODEL_STORE_ERROR', /failed while listing.*InvalidRequest, HTTP 400/],
  ])('maps %s (HTTP %s) to %s', (name, status, code, message) => {
    const mapped = mapS3Error(sdkError(name, status), AT, 'listing the versions');
    expect(mapped.code).toBe(code);
    expect(mapped.message).toMatch(message);
    // The SDK's own text (which may quote the request) never reaches the message.
    expect(mapped.message).not.toContain('service text');
  });

  it('maps a refused connection by its code, or its text where the SDK kept only that', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    const wrapped = new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:9');
    for (const error of [refused, wrapped]) {
      const mapped = mapS3Error(error, AT, 'checking the bucket');
      expect(mapped.code).toBe('MODEL_STORE_UNAVAILABLE');
      expect(mapped.message).toMatch(/unavailable while checking the bucket \(ECONNREFUSED\)/);
    }
  });

  it('tells a full cache disk from the store, and passes KgcErrors through', () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      path: '/var/cache/kgc/.tmp-v1/model.safetensors',
    });
    expect(mapS3Error(full, AT, 'downloading v1').message).toMatch(
      /Writing \/var\/cache\/kgc\/.tmp-v1\/model.safetensors failed while downloading v1 \(ENOSPC\)/,
    );
    const ours = new KgcError('MODEL_INVALID', 'x');
    expect(mapS3Error(ours, AT, 'y')).toBe(ours);
  });
});
