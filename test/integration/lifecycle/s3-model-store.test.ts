import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { loadConfig } from '../../../src/config';
import type { S3StoreConfig } from '../../../src/config';
import { Database } from '../../../src/graph';
import { getActiveVersion } from '../../../src/graph/registry';
import { runRetrainJob } from '../../../src/jobs';
import {
  ABANDONED_UPLOAD_AGE_MS,
  loadScorer,
  ModelStore,
  openModelStore,
  Scorer,
} from '../../../src/model';
import { S3VersionMirror } from '../../../src/model/store/s3/s3-version-mirror';
import { createLogger } from '../../../src/server/logger';
import { ModelFollower } from '../../../src/server/model-follower';
import { TINY, writeClassGraph } from '../../support/lifecycle';
import { testDatabase, testServerConfig, uniqueId } from '../../support/test-database';
import { startTestS3 } from '../../support/test-s3';
import type { TestS3 } from '../../support/test-s3';

jest.setTimeout(240_000);

/** Every file under `dir`, relative, '/'-separated, sorted (hidden records of the cache left out). */
function files(dir: string, under = ''): string[] {
  return fs
    .readdirSync(path.join(dir, under), { withFileTypes: true })
    .flatMap((e) => {
      const name = under ? `${under}/${e.name}` : e.name;
      return e.isDirectory() ? files(dir, name) : [name];
    })
    .filter((name) => !name.startsWith('.'))
    .sort();
}

const tempDir = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `kgc-${name}-`));

describe('a model store in S3 (SeaweedFS), shared by machines with their own caches', () => {
  let s3: TestS3;
  let db: Database;
  let bucket: string;
  let remote: S3StoreConfig;
  let raw: S3Client;
  const scope = uniqueId('scope');
  const caches: string[] = [];
  /** A machine: its own cache directory in front of the shared bucket. */
  const machine = () => {
    const dir = tempDir('cache');
    caches.push(dir);
    return openModelStore({ modelStore: dir, remoteModelStore: remote });
  };
  const keysOf = async (prefix: string) =>
    ((await raw.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? [])
      .map((o) => o.Key as string)
      .sort();

  let graph: Awaited<ReturnType<typeof writeClassGraph>>;
  let writer: ModelStore;
  let first: string;

  beforeAll(async () => {
    s3 = await startTestS3();
    bucket = `kgc-${crypto.randomBytes(4).toString('hex')}`;
    await s3.createBucket(bucket);
    remote = loadConfig(s3.env(bucket, 'models/kg1')).lifecycle.remoteModelStore!;
    raw = new S3Client({
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    db = testDatabase();
    graph = await writeClassGraph(db, 60);
    writer = machine();
    const result = await runRetrainJob(db, testServerConfig(), {
      store: writer,
      scope,
      filter: graph.filter,
      overrides: TINY,
    });
    first = result.version!;
  });

  afterAll(async () => {
    raw?.destroy();
    await db?.close();
    await s3?.stop();
    for (const dir of caches) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uploads what the job wrote, and another machine reads it back byte for byte', async () => {
    const written = writer.dir(first);
    expect(fs.existsSync(written)).toBe(true);
    // Every file under the version's prefix, and the completion marker.
    const keys = await keysOf(`models/kg1/${first}/`);
    expect(keys).toEqual(
      [...files(written), '.complete'].map((name) => `models/kg1/${first}/${name}`).sort(),
    );

    const reader = machine();
    expect(await reader.versions()).toEqual([first]);
    expect(fs.existsSync(reader.dir(first))).toBe(false);
    const fetched = await reader.locate(first);
    expect(fetched).toBe(reader.dir(first));
    expect(files(fetched)).toEqual(files(written));
    for (const name of files(written)) {
      const same = fs
        .readFileSync(path.join(fetched, name))
        .equals(fs.readFileSync(path.join(written, name)));
      expect([name, same]).toEqual([name, true]);
    }
    // The engine loads the copy, and it scores as the original does.
    const copy = loadScorer(fetched);
    const original = Scorer.load(written);
    const [h, r, t] = [copy.entity(graph.triples[0]![0]), 0, copy.entity(graph.triples[1]![2])];
    expect(copy.score(h, r, t)).toEqual(original.score(h, r, t));
    // Nothing temporary is left in the cache.
    expect(fs.readdirSync(path.dirname(fetched))).toEqual([first]);
  });

  it('shares files added after the upload (suggestions) with machines that cached the version', async () => {
    const reader = machine();
    await reader.locate(first);
    const file = path.join(writer.dir(first), 'suggestions.bin');
    expect(fs.existsSync(path.join(reader.dir(first), 'suggestions.bin'))).toBe(true);
    const original = fs.readFileSync(file);
    // `kgc suggest` replaces the file on the writer's machine and shares it.
    fs.writeFileSync(file, Buffer.concat([original, Buffer.from('recomputed')]));
    expect(await writer.shareAdded(first)).toEqual(['suggestions.bin']);
    expect(await writer.refreshAdded(first)).toEqual([]);
    expect(await reader.refreshAdded(first)).toEqual(['suggestions.bin']);
    expect(fs.readFileSync(path.join(reader.dir(first), 'suggestions.bin'))).toEqual(
      fs.readFileSync(file),
    );
    expect(await reader.refreshAdded(first)).toEqual([]);
    fs.writeFileSync(file, original);
    await writer.shareAdded(first);
    // An object put under the version later that kgc never adds (an older format's
    // suggestions.json, which serving would read) is neither fetched nor served; nor is a
    // local stray file shared.
    const planted = `models/kg1/${first}/suggestions.json`;
    await raw.send(new PutObjectCommand({ Bucket: bucket, Key: planted, Body: '{}' }));
    // (The writer's restored suggestions.bin just before is fetched, as it should be.)
    expect(await reader.refreshAdded(first)).toEqual(['suggestions.bin']);
    expect(fs.existsSync(path.join(reader.dir(first), 'suggestions.json'))).toBe(false);
    fs.writeFileSync(path.join(writer.dir(first), 'notes.txt'), 'local');
    expect(await writer.shareAdded(first)).toEqual(['suggestions.bin']);
    fs.rmSync(path.join(writer.dir(first), 'notes.txt'));
    await raw.send(new DeleteObjectCommand({ Bucket: bucket, Key: planted }));
  });

  it('follows the active version on a machine that lacks it: downloaded, then served', async () => {
    const replica = machine();
    // The registry records the writer's cache; a replica reads its own copy, never another's.
    const registered = (await getActiveVersion(db, scope))!;
    expect(registered).toEqual({ version: first, dir: writer.dir(first) });
    const follower = new ModelFollower(
      db,
      { store: replica, scope, pollMs: 60_000 },
      createLogger('error'),
    );
    try {
      await follower.start();
      expect(follower.current()?.version).toBe(first);
      expect(fs.existsSync(path.join(replica.dir(first), 'model.safetensors'))).toBe(true);
    } finally {
      await follower.stop();
    }
  });

  it('never shows a version whose marker is missing (an upload cut short)', async () => {
    const reader = machine();
    const cut = reader.newVersionId();
    // What an interrupted upload leaves: some of the files, no marker.
    for (const name of ['manifest.json', 'model.safetensors']) {
      await raw.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `models/kg1/${cut}/${name}`,
          Body: fs.readFileSync(path.join(writer.dir(first), name)),
        }),
      );
    }
    expect(await reader.versions()).toEqual([first]);
    await expect(reader.locate(cut)).rejects.toMatchObject({
      code: 'MODEL_INVALID',
      message: expect.stringContaining('no completion marker') as string,
    });
    expect(fs.readdirSync(reader.root)).toEqual([]);
    // Its files go with the version's removal.
    expect(await new S3VersionMirror(remote).remove(cut)).toBe(true);
    expect(await keysOf(`models/kg1/${cut}/`)).toEqual([]);
  });

  it('refuses a damaged file (checked against the marker), leaving nothing in the cache', async () => {
    const reader = machine();
    const key = `models/kg1/${first}/version.json`;
    const good = fs.readFileSync(path.join(writer.dir(first), 'version.json'));
    await raw.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'tampered' }));
    try {
      await expect(reader.locate(first)).rejects.toMatchObject({
        code: 'MODEL_INVALID',
        message: expect.stringMatching(/damaged: version\.json is 8 bytes/) as string,
      });
      expect(fs.readdirSync(reader.root)).toEqual([]);
    } finally {
      await raw.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: good }));
    }
  });

  it('retention removes old versions from the bucket and from the caches', async () => {
    const config = testServerConfig({ KGC_MODEL_KEEP: '1' });
    const options = { store: writer, scope, filter: graph.filter, overrides: TINY, force: true };
    const second = (await runRetrainJob(db, config, options)).version!;
    const replica = machine();
    await replica.locate(first);
    await replica.locate(second);
    // Keep 1: the third version is active, the second is what a rollback returns to; the first
    // goes, marker first, every object of it.
    const third = (await runRetrainJob(db, config, options)).version!;
    // Listed by id, which orders by creation time only to the second: two versions made in
    // the same second list in either order.
    expect(await writer.versions()).toEqual([second, third].sort());
    expect(await keysOf(`models/kg1/${first}/`)).toEqual([]);
    expect(fs.existsSync(writer.dir(first))).toBe(false);
    // A replica drops the versions the store no longer holds, never one it is told to keep.
    expect(await replica.evictRemoved([])).toEqual([first]);
    expect(replica.list()).toEqual([second]);
    // A half-removed version (marker gone, files left) is invisible too, and is evicted.
    await raw.send(
      new DeleteObjectCommand({ Bucket: bucket, Key: `models/kg1/${second}/.complete` }),
    );
    expect(await writer.versions()).toEqual([third]);
    expect(await replica.evictRemoved([])).toEqual([second]);
  });

  it('sweeps what interrupted uploads left once it is a day old, nothing else', async () => {
    const mirror = new S3VersionMirror(remote);
    const marked = await mirror.list();
    const markedKeys = await Promise.all(marked.map((v) => keysOf(`models/kg1/${v}/`)));
    // A process killed mid-upload: one file of a version that never got its marker, and a
    // multipart upload started and never completed (its part stored, the object listed nowhere).
    const abandoned = writer.newVersionId();
    await raw.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `models/kg1/${abandoned}/manifest.json`,
        Body: '{}',
      }),
    );
    const big = `models/kg1/${abandoned}/model.safetensors`;
    const started = await raw.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: big }));
    await raw.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: big,
        UploadId: started.UploadId,
        PartNumber: 1,
        Body: Buffer.alloc(64 * 1024, 7),
      }),
    );
    // Not a version: never the sweep's to remove.
    await raw.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'models/kg1/notes/readme.txt', Body: 'kept' }),
    );
    const uploads = async () =>
      (await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: 'models/kg1/' })))
        .Uploads ?? [];
    expect((await uploads()).map((u) => u.Key)).toEqual([big]);

    // Younger than the age (it may be an upload still running on another machine): kept.
    const now = await mirror.sweepAbandoned(new Date(Date.now() - ABANDONED_UPLOAD_AGE_MS));
    expect(now).toEqual({ uploadsAborted: 0, unmarkedRemoved: [] });
    expect(await keysOf(`models/kg1/${abandoned}/`)).toEqual([
      `models/kg1/${abandoned}/manifest.json`,
    ]);

    // A day later (the cut-off moved past them): swept.
    const later = await mirror.sweepAbandoned(new Date(Date.now() + 60_000));
    expect(later.uploadsAborted).toBe(1);
    expect(later.unmarkedRemoved).toContain(abandoned);
    expect(await uploads()).toEqual([]);
    expect(await keysOf(`models/kg1/${abandoned}/`)).toEqual([]);
    // Complete versions, every file of them, and what is not a version stay.
    expect(await mirror.list()).toEqual(marked);
    expect(await Promise.all(marked.map((v) => keysOf(`models/kg1/${v}/`)))).toEqual(markedKeys);
    expect(await keysOf('models/kg1/notes/')).toEqual(['models/kg1/notes/readme.txt']);
  });

  it('reports a refused secret, an unknown bucket and an unreachable server clearly, no secret in them', async () => {
    const secret = `wrong-${crypto.randomBytes(8).toString('hex')}`;
    const failures = [
      {
        config: { ...remote, credentials: { ...remote.credentials, secretAccessKey: secret } },
        code: 'MODEL_STORE_AUTH_FAILED',
        message: /refused the credentials .*check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY/,
      },
      {
        config: { ...remote, bucket: 'kgc-no-such-bucket' },
        code: 'INVALID_CONFIG',
        message:
          /bucket of KGC_MODEL_STORE \(s3:\/\/kgc-no-such-bucket\/models\/kg1\) does not exist/,
      },
      {
        config: { ...remote, endpoint: 'http://127.0.0.1:9' },
        code: 'MODEL_STORE_UNAVAILABLE',
        message: /s3:\/\/.* is unavailable while checking the bucket/,
      },
    ];
    for (const failure of failures) {
      const store = new ModelStore(tempDir('cache'), new S3VersionMirror(failure.config));
      caches.push(store.root);
      const error = await store.remote!.check().then(
        () => undefined,
        (e: unknown) => e as Error & { code: string },
      );
      expect(error).toBeDefined();
      expect(error!.code).toBe(failure.code);
      expect(error!.message).toMatch(failure.message);
      // Nowhere in what a log could print: the message, the stack, the causes.
      let text = '';
      for (let e: unknown = error; e instanceof Error; e = e.cause) {
        text += `${e.message}\n${e.stack}\n${JSON.stringify(e)}\n`;
      }
      expect(text).not.toContain(secret);
      expect(text).not.toContain(s3.secretAccessKey);
    }
  });
});
