import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { S3Client } from '@aws-sdk/client-s3';
import { s3Url } from '../../../config';
import type { S3StoreConfig } from '../../../config';
import { ErrorCode, KgcError } from '../../../errors';
import { isVersionId } from '../version-id';
import { describeVersion, hashFile, parseManifest, writeHashed } from '../version-manifest';
import type { VersionManifest } from '../version-manifest';
import type { SweepResult, VersionMirror } from '../version-mirror';
import { mapS3Error } from './s3-errors';

/** The completion marker, `<prefix>/<version>/.complete`: the version's manifest, written last. */
const MARKER = '.complete';
/**
 * Multipart uploads stream a file in parts of this size, two in flight: a model file of any size
 * costs about 32 MB of memory (and S3's 10,000-part limit allows files up to 160 GB).
 */
const PART_SIZE = 16 * 2 ** 20;
const PARTS_IN_FLIGHT = 2;

type Sdk = typeof import('@aws-sdk/client-s3');
type Storage = typeof import('@aws-sdk/lib-storage');

/** Model versions in an S3-compatible bucket, one key prefix per version. */
export class S3VersionMirror implements VersionMirror {
  readonly location: string;
  private readonly bucket: string;
  private readonly prefix: string;
  private loaded: Promise<{ sdk: Sdk; storage: Storage; client: S3Client }> | undefined;

  constructor(private readonly config: S3StoreConfig) {
    this.location = s3Url(config);
    this.bucket = config.bucket;
    this.prefix = config.prefix ? `${config.prefix}/` : '';
  }

  async upload(version: string, dir: string): Promise<VersionManifest> {
    const manifest = await describeVersion(dir, version);
    try {
      for (const file of manifest.files) {
        await this.put(version, file.path, path.join(dir, file.path), {});
      }
      // Last: a reader that finds the marker finds every file it lists.
      await this.attempt(`marking ${version} complete`, async ({ sdk, client }) =>
        client.send(
          new sdk.PutObjectCommand({
            Bucket: this.bucket,
            Key: this.key(version, MARKER),
            Body: JSON.stringify(manifest),
            ContentType: 'application/json',
          }),
        ),
      );
      return manifest;
    } catch (error) {
      // Unmarked files are invisible to readers; removing them only saves the space. The marker
      // goes first in case its upload succeeded but its answer was lost.
      await this.remove(version).catch(() => undefined);
      throw error;
    }
  }

  async download(version: string, into: string): Promise<VersionManifest> {
    const manifest = await this.manifest(version);
    if (!manifest) {
      throw new KgcError(
        ErrorCode.MODEL_INVALID,
        `Model version ${version} is not in the model store ${this.location}: it has no ` +
          'completion marker (never uploaded whole, or removed by retention).',
      );
    }
    for (const file of manifest.files) {
      const target = path.join(into, ...file.path.split('/'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const got = await this.attempt(`downloading ${version}/${file.path}`, async (s3) => {
        const object = await this.get(s3, version, file.path);
        return object && writeHashed(object.body, target);
      });
      if (got?.size !== file.size || got.sha256 !== file.sha256) {
        const found = got ? `${got.size} bytes, sha256 ${got.sha256}` : 'missing';
        throw new KgcError(
          ErrorCode.MODEL_INVALID,
          `Model version ${version} in ${this.location} is damaged: ${file.path} is ${found}, ` +
            `its marker says ${file.size} bytes, sha256 ${file.sha256}. Upload it again or ` +
            'choose another version (`npx kgc models list`).',
        );
      }
    }
    return manifest;
  }

  async list(): Promise<string[]> {
    const versions: string[] = [];
    for (const { key } of await this.objects(this.prefix, 'listing the versions')) {
      const [version, name, ...rest] = key.slice(this.prefix.length).split('/');
      if (name === MARKER && rest.length === 0 && isVersionId(version ?? '')) {
        versions.push(version as string);
      }
    }
    return versions.sort();
  }

  async remove(version: string): Promise<boolean> {
    const doing = `removing ${version}`;
    const marker = this.key(version, MARKER);
    const keys = (await this.objects(this.key(version, ''), doing)).map((o) => o.key);
    // The marker first: a version half removed is a version no reader sees.
    for (const key of [marker, ...keys.filter((k) => k !== marker)]) {
      await this.attempt(doing, ({ sdk, client }) =>
        client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: key })),
      );
    }
    return keys.length > 0;
  }

  async check(): Promise<void> {
    await this.attempt('checking the bucket', ({ sdk, client }) =>
      client.send(
        new sdk.ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, MaxKeys: 1 }),
      ),
    );
  }

  async files(version: string): Promise<{ name: string; etag: string }[]> {
    const under = this.key(version, '');
    return (await this.objects(under, `listing the files of ${version}`))
      .map(({ key, etag }) => ({ name: key.slice(under.length), etag }))
      .filter(({ name }) => name !== MARKER);
  }

  async putAdded(version: string, name: string, file: string): Promise<string> {
    const { sha256 } = await hashFile(file);
    return this.put(version, name, file, { sha256 });
  }

  async getAdded(version: string, name: string, target: string): Promise<string> {
    const got = await this.attempt(`downloading ${version}/${name}`, async (s3) => {
      const object = await this.get(s3, version, name);
      return object && { ...object, ...(await writeHashed(object.body, target)) };
    });
    if (!got || got.sha256 !== got.metadata.sha256) {
      throw new KgcError(
        ErrorCode.MODEL_INVALID,
        `The file ${name} added to ${version} in ${this.location} is ` +
          `${got ? 'damaged (its sha256 differs from the one stored with it)' : 'gone'}.`,
      );
    }
    return got.etag;
  }

  async sweepAbandoned(before: Date): Promise<SweepResult> {
    const doing = 'sweeping abandoned uploads';
    let uploadsAborted = 0;
    for (const upload of await this.multipartUploads(doing)) {
      if (upload.initiated >= before) continue;
      await this.attempt(doing, ({ sdk, client }) =>
        client.send(
          new sdk.AbortMultipartUploadCommand({
            Bucket: this.bucket,
            Key: upload.key,
            UploadId: upload.uploadId,
          }),
        ),
      );
      uploadsAborted += 1;
    }
    const byVersion = new Map<string, { key: string; lastModified: Date }[]>();
    for (const object of await this.objects(this.prefix, doing)) {
      const version = object.key.slice(this.prefix.length).split('/')[0] ?? '';
      if (!isVersionId(version)) continue;
      const group = byVersion.get(version) ?? [];
      group.push(object);
      byVersion.set(version, group);
    }
    const unmarkedRemoved: string[] = [];
    for (const [version, objects] of byVersion) {
      const marker = this.key(version, MARKER);
      if (objects.some((o) => o.key === marker || o.lastModified >= before)) continue;
      // Checked again just before: a marker written since the listing keeps the version.
      if (await this.manifest(version)) continue;
      for (const { key } of objects) {
        await this.attempt(doing, ({ sdk, client }) =>
          client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: key })),
        );
      }
      unmarkedRemoved.push(version);
    }
    return { uploadsAborted, unmarkedRemoved: unmarkedRemoved.sort() };
  }

  private key(version: string, name: string): string {
    return `${this.prefix}${version}/${name}`;
  }

  /**
   * The SDK, loaded on first use: most commands never touch the store, and loading it costs
   * about 200 ms.
   */
  private sdk(): Promise<{ sdk: Sdk; storage: Storage; client: S3Client }> {
    this.loaded ??= (async () => {
      const [sdk, storage] = await Promise.all([
        import('@aws-sdk/client-s3'),
        import('@aws-sdk/lib-storage'),
      ]);
      const { config } = this;
      const client = new sdk.S3Client({
        region: config.region,
        endpoint: config.endpoint,
        forcePathStyle: config.forcePathStyle,
        credentials: config.credentials,
        // Every file is checked against the manifest's sha256 on download; the SDK's optional
        // CRC checksums are left off, as S3-compatible servers support them unevenly.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        // A wrong endpoint fails in seconds; a server that stops sending mid-file, in a minute.
        requestHandler: { connectionTimeout: 5_000, socketTimeout: 60_000 },
      });
      return { sdk, storage, client };
    })();
    return this.loaded;
  }

  /** Streams a file to `<version>/<name>` (multipart when large); returns the object's ETag. */
  private async put(
    version: string,
    name: string,
    file: string,
    metadata: Record<string, string>,
  ): Promise<string> {
    const done = await this.attempt(`uploading ${version}/${name}`, ({ storage, client }) =>
      new storage.Upload({
        client,
        params: {
          Bucket: this.bucket,
          Key: this.key(version, name),
          Body: fs.createReadStream(file),
          Metadata: metadata,
        },
        partSize: PART_SIZE,
        queueSize: PARTS_IN_FLIGHT,
      }).done(),
    );
    return done.ETag ?? '';
  }

  /** An object's content as a stream, with its ETag and metadata; undefined when it is absent. */
  private async get(
    { sdk, client }: { sdk: Sdk; client: S3Client },
    version: string,
    name: string,
  ): Promise<{ body: Readable; etag: string; metadata: Record<string, string> } | undefined> {
    try {
      const object = await client.send(
        new sdk.GetObjectCommand({ Bucket: this.bucket, Key: this.key(version, name) }),
      );
      return {
        body: object.Body as Readable,
        etag: object.ETag ?? '',
        metadata: object.Metadata ?? {},
      };
    } catch (error) {
      if ((error as { name?: string } | null)?.name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /** The version's marker, parsed; undefined when it has none. */
  private async manifest(version: string): Promise<VersionManifest | undefined> {
    const marker = await this.attempt(`reading the marker of ${version}`, async (s3) => {
      const object = await this.get(s3, version, MARKER);
      return object && text(object.body);
    });
    return marker === undefined ? undefined : parseManifest(marker, version, this.location);
  }

  /** Every object under `prefix`, page by page. */
  private async objects(
    prefix: string,
    doing: string,
  ): Promise<{ key: string; etag: string; lastModified: Date }[]> {
    const objects: { key: string; etag: string; lastModified: Date }[] = [];
    let token: string | undefined;
    do {
      const page = await this.attempt(doing, ({ sdk, client }) =>
        client.send(
          new sdk.ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: prefix,
            ContinuationToken: token,
          }),
        ),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key) {
          objects.push({
            key: o.Key,
            etag: o.ETag ?? '',
            lastModified: o.LastModified ?? new Date(0),
          });
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return objects;
  }

  /** The multipart uploads under this store's prefix that were started and never completed. */
  private async multipartUploads(
    doing: string,
  ): Promise<{ key: string; uploadId: string; initiated: Date }[]> {
    const uploads: { key: string; uploadId: string; initiated: Date }[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.attempt(doing, ({ sdk, client }) =>
        client.send(
          new sdk.ListMultipartUploadsCommand({
            Bucket: this.bucket,
            Prefix: this.prefix,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        ),
      );
      for (const u of page.Uploads ?? []) {
        if (u.Key && u.UploadId) {
          uploads.push({ key: u.Key, uploadId: u.UploadId, initiated: u.Initiated ?? new Date(0) });
        }
      }
      const more = page.IsTruncated === true;
      keyMarker = more ? page.NextKeyMarker : undefined;
      uploadIdMarker = more ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return uploads;
  }

  private async attempt<T>(
    doing: string,
    call: (s3: { sdk: Sdk; storage: Storage; client: S3Client }) => Promise<T>,
  ): Promise<T> {
    try {
      return await call(await this.sdk());
    } catch (error) {
      throw mapS3Error(error, this.location, doing);
    }
  }
}
