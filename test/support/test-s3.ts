import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { findFreePort } from '../../src/graph/local/free-port';
import { processCommandLine } from '../../src/graph/local/process-identity';

/**
 * A real S3-compatible server for tests: SeaweedFS's `weed server` (master, volume, filer and
 * its S3 gateway in one process), built by scripts/setup.sh into the cache, started on free
 * loopback ports with its data in a temporary directory, one per test file.
 */
export interface TestS3 {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The environment that points `kgc` at `s3://<bucket>/<prefix>` on this server. */
  env(bucket: string, prefix?: string): Record<string, string>;
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}

const PREFIX = 'kgc-test-s3-';
const REPO = path.resolve(__dirname, '../..');
const READY_TIMEOUT_MS = 90_000;

function weedBinary(): string {
  const version = fs.readFileSync(path.join(REPO, 'scripts/seaweedfs/version'), 'utf8').trim();
  const cache = process.env.KGC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'kgc');
  const bin = path.join(cache, `seaweedfs-${version}`, 'weed');
  if (!fs.existsSync(bin)) {
    throw new Error(
      `SeaweedFS is not built (${bin}): run \`KGC_TEST_SERVERS=1 npm run setup\` (scripts/test.sh does).`,
    );
  }
  return bin;
}

async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await findFreePort());
  return [...ports];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops the server of `dir` (its process group) if it still runs; waits up to `ms`. */
async function stopServer(dir: string, ms = 10_000): Promise<void> {
  let pid: number | undefined;
  try {
    pid = (JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8')) as { pid?: number })
      .pid;
  } catch {
    return;
  }
  // A recycled pid is someone else's process: only one whose command line names `dir` is ours.
  if (!pid || !isAlive(pid) || !processCommandLine(pid)?.includes(dir)) return;
  process.kill(-pid, 'SIGTERM');
  const deadline = Date.now() + ms;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) process.kill(-pid, 'SIGKILL');
}

/** Stops servers and removes directories left by test runs killed before their teardown. */
export async function reapLeftoverS3(): Promise<void> {
  for (const name of fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(PREFIX))) {
    const dir = path.join(os.tmpdir(), name);
    const owner = Number(/-(\d+)-[0-9a-f]+$/.exec(name)?.[1]);
    if (Number.isInteger(owner) && isAlive(owner)) continue;
    await stopServer(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function identities(accessKey: string, secretKey: string): string {
  return JSON.stringify({
    identities: [
      {
        name: 'kgc-test',
        credentials: [{ accessKey, secretKey }],
        actions: ['Admin', 'Read', 'List', 'Tagging', 'Write'],
      },
    ],
  });
}

export async function startTestS3(): Promise<TestS3> {
  const bin = weedBinary();
  await reapLeftoverS3();
  const dir = path.join(
    os.tmpdir(),
    `${PREFIX}${process.pid}-${crypto.randomBytes(4).toString('hex')}`,
  );
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  const accessKeyId = `test${crypto.randomBytes(6).toString('hex')}`;
  const secretAccessKey = crypto.randomBytes(24).toString('hex');
  fs.writeFileSync(path.join(dir, 's3.json'), identities(accessKeyId, secretAccessKey));
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc] = await freePorts(8);
  const log = fs.openSync(path.join(dir, 'weed.log'), 'a');
  const child = spawn(
    bin,
    [
      'server',
      '-ip=127.0.0.1',
      '-ip.bind=127.0.0.1',
      `-dir=${path.join(dir, 'data')}`,
      '-master.telemetry=false',
      `-master.port=${master}`,
      `-master.port.grpc=${masterGrpc}`,
      '-master.volumeSizeLimitMB=64',
      `-volume.port=${volume}`,
      `-volume.port.grpc=${volumeGrpc}`,
      '-volume.max=16',
      '-filer',
      `-filer.port=${filer}`,
      `-filer.port.grpc=${filerGrpc}`,
      `-filer.localSocket=${path.join(dir, 'filer.sock')}`,
      '-s3',
      `-s3.port=${s3}`,
      `-s3.port.grpc=${s3Grpc}`,
      '-s3.port.iceberg=0',
      '-s3.port.lance=0',
      `-s3.localSocket=${path.join(dir, 's3.sock')}`,
      `-s3.config=${path.join(dir, 's3.json')}`,
    ],
    { detached: true, stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  child.unref();
  fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify({ pid: child.pid }));
  const endpoint = `http://127.0.0.1:${s3}`;
  const region = 'us-east-1';
  const client = new S3Client({
    region,
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  const stop = async () => {
    client.destroy();
    await stopServer(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const createBucket = async (name: string) => {
    await client.send(new CreateBucketCommand({ Bucket: name }));
  };
  // Ready when the gateway creates a bucket: the filer and a writable volume are up behind it.
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      await createBucket('kgc-ready');
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        const tail = fs.readFileSync(path.join(dir, 'weed.log'), 'utf8').slice(-2000);
        await stop();
        throw new Error(`SeaweedFS did not start (${(error as Error).name}):\n${tail}`, {
          cause: error,
        });
      }
      await sleep(250);
    }
  }
  return {
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    env: (bucket, prefix = '') => ({
      KGC_MODEL_STORE: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
    }),
    createBucket,
    stop,
  };
}
