import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '../../src/graph';
import { findFreePort } from '../../src/graph/local/free-port';
import { startCli, waitFor } from '../support/cli-process';
import type { CliProcess } from '../support/cli-process';
import { writeClassGraph } from '../support/lifecycle';
import { gql } from '../support/served-model';
import { testDatabase, testTarget, uniqueId } from '../support/test-database';
import { startTestS3 } from '../support/test-s3';
import type { TestS3 } from '../support/test-s3';

jest.setTimeout(300_000);

const TRAIN = ['--epochs', '40', '--eval-every', '10', '--threads', '1', '--seed', '3'];
const ANSWERS = `query($e: String!, $r: String!) {
  model { version }
  missingLinks(entity: $e, relation: $r, k: 5) { entity { id } logit modelVersion }
  reviewQueue(relation: $r, first: 5) { items { head { id } tail { id } modelVersion } }
}`;

interface Answers {
  model: { version: string } | null;
  missingLinks: { entity: { id: string }; logit: number; modelVersion: string }[];
  reviewQueue: { items: { head: { id: string }; tail: { id: string }; modelVersion: string }[] };
}

/** One machine: a state directory of its own and a `kgc serve` on a port of its own. */
interface Replica {
  stateDir: string;
  url: string;
  process: CliProcess;
}

describe('API replicas on two machines share model versions through S3', () => {
  let s3: TestS3;
  let db: Database;
  let env: Record<string, string>;
  let graph: Awaited<ReturnType<typeof writeClassGraph>>;
  const replicas: Replica[] = [];

  const startReplica = async (): Promise<Replica> => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-replica-'));
    const port = await findFreePort();
    const process = startCli(['serve'], {
      ...env,
      KGC_STATE_DIR: stateDir,
      KGC_HTTP_PORT: String(port),
    });
    const replica = { stateDir, url: `http://127.0.0.1:${port}/graphql`, process };
    replicas.push(replica);
    await waitFor(
      async () => {
        if (process.child.exitCode !== null) throw new Error(`serve exited:\n${process.output()}`);
        const health = await fetch(replica.url.replace(/graphql$/, 'healthz')).catch(() => null);
        return health?.ok ? true : undefined;
      },
      60_000,
      'kgc serve to listen',
    );
    return replica;
  };

  const answers = async (replica: Replica) => {
    const result = await gql<Answers>(replica.url, ANSWERS, {
      e: `${graph.prefix}:e1`,
      r: graph.filter.relations[0],
    });
    return result.data;
  };

  beforeAll(async () => {
    s3 = await startTestS3();
    const bucket = `kgc-${crypto.randomBytes(4).toString('hex')}`;
    await s3.createBucket(bucket);
    db = testDatabase();
    graph = await writeClassGraph(db, 60);
    const target = testTarget();
    env = {
      ...s3.env(bucket, 'replicas'),
      NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
      KGC_REGISTRY_SCOPE: uniqueId('scope'),
      KGC_RETRAIN_RELATIONS: graph.filter.relations.join(','),
      KGC_MODEL_POLL_SECONDS: '1',
    };
  });

  afterAll(async () => {
    for (const replica of replicas) {
      replica.process.child.kill('SIGTERM');
      await replica.process.exited;
      fs.rmSync(replica.stateDir, { recursive: true, force: true });
    }
    await db?.close();
    await s3?.stop();
  });

  it('serves on the second machine the version trained on the first, with its review queue', async () => {
    const first = await startReplica();
    const second = await startReplica();
    expect((await gql(second.url, '{ model { version } }')).data).toEqual({ model: null });

    // The first machine trains: the version goes to its cache and to the bucket.
    // In the background: a blocked event loop would leave the clients' kept-alive sockets stale.
    const train = startCli(['train', ...TRAIN, '--json'], {
      ...env,
      KGC_STATE_DIR: first.stateDir,
    });
    expect(await train.exited).toEqual({ code: 0, signal: null });
    const version = /"version":"(v[^"]+)"/.exec(train.output())?.[1] as string;
    expect(fs.existsSync(path.join(first.stateDir, 'models', version))).toBe(true);

    // The second machine downloads it into its own cache and serves it; both answer alike.
    const served = await Promise.all(
      [first, second].map((replica) =>
        waitFor(
          async () => {
            const data = await answers(replica);
            return data?.model?.version === version && data.reviewQueue.items.length > 0
              ? data
              : undefined;
          },
          60_000,
          `a replica to serve ${version} with its suggestions`,
        ),
      ),
    );
    expect(fs.existsSync(path.join(second.stateDir, 'models', version, 'model.safetensors'))).toBe(
      true,
    );
    expect(served[1]).toEqual(served[0]);
    expect(served[1]!.missingLinks.length).toBeGreaterThan(0);
    expect(served[1]!.missingLinks.every((p) => p.modelVersion === version)).toBe(true);
    // serve writes its log in blocks (at least every 200 ms): the line may follow the answer.
    await waitFor(
      async () => second.process.output().includes('serving the active model version') || undefined,
      5_000,
      'the second replica to log the version it serves',
    );
  });
});
