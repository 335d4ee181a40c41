import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Database, TripleWriter } from '../../src/graph';
import type { ConnectionTarget, LocalNeo4j } from '../../src/graph';
import { listTrainingRuns } from '../../src/graph/registry';
import type { TrainingRunRecord } from '../../src/graph/registry';
import { findFreePort } from '../../src/graph/local/free-port';
import { waitFor } from '../support/cli-process';
import { classGraph } from '../support/generated-graph';
import { newTestDir, testNeo4j } from '../support/test-neo4j';

/**
 * The kgc image and docker-compose.yml run for real (issue 61), as scripts/container-test.sh
 * prepares them: the image built from the Dockerfile (KGC_CONTAINER_IMAGE), Compose v2
 * (KGC_COMPOSE), the stack started with scripts/container/docker-compose.host.yml over it (host
 * network; this test's own Neo4j on the host in place of the official image).
 */
const exec = promisify(execFile);
const REPO = path.resolve(__dirname, '../..');
const IMAGE = requiredEnv('KGC_CONTAINER_IMAGE');
const COMPOSE = requiredEnv('KGC_COMPOSE');
const PROJECT = 'kgc-container-test';
const MAX_IMAGE_BYTES = 400 * 1024 * 1024;

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run the container test with scripts/container-test.sh`);
  return value;
}

interface GraphQLBody {
  data?: {
    model?: { version: string };
    missingLinks?: {
      entity: { id: string };
      rank: number;
      probability: number;
      modelVersion: string;
    }[];
  };
  errors?: unknown[];
}

interface ContainerState {
  Status: string;
  ExitCode: number;
  StartedAt: string;
  FinishedAt: string;
}

describe('the kgc image and the compose stack', () => {
  let neo4j: LocalNeo4j;
  let neo4jDir: string;
  let target: ConnectionTarget;
  let db: Database;
  let port: number;
  let emptyEnvFile: string;
  let stackEnv: Record<string, string>;
  const graph = classGraph(80);

  const compose = async (args: string[], extra: Record<string, string> = {}) =>
    exec(
      COMPOSE,
      [
        '-p',
        PROJECT,
        // A developer's .env must not change what is tested.
        '--env-file',
        emptyEnvFile,
        '-f',
        'docker-compose.yml',
        '-f',
        'scripts/container/docker-compose.host.yml',
        ...args,
      ],
      { cwd: REPO, env: { ...process.env, ...stackEnv, ...extra }, maxBuffer: 64 << 20 },
    );
  const containers = async (service: string) =>
    (await compose(['ps', '-a', '-q', service])).stdout.split('\n').filter(Boolean);
  const state = async (id: string) =>
    JSON.parse(
      (await exec('docker', ['inspect', '--format', '{{json .State}}', id])).stdout,
    ) as ContainerState;
  /** A container's stdout and stderr, apart. */
  const logs = async (id: string) => exec('docker', ['logs', id], { maxBuffer: 64 << 20 });
  const graphql = async (query: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return {
      status: response.status,
      body: (await response.json()) as GraphQLBody,
    };
  };
  const ready = async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined;
    } catch {
      return undefined;
    }
  };
  const activeVersion = async () =>
    (await graphql('{ model { version } }')).body.data?.model?.version;
  const runs = async () => (await listTrainingRuns(db, { first: 100 })).items;
  const migrationsApplied = async () =>
    db.read(async (tx) => {
      const result = await tx.run(
        'MATCH (:__Neo4jMigration)-[m:MIGRATED_TO]->(v:__Neo4jMigration) RETURN v.version AS version, count(m) AS times',
      );
      return result.records.map((r) => ({
        version: r.get('version') as string,
        times: Number(r.get('times')),
      }));
    });

  beforeAll(async () => {
    neo4jDir = newTestDir();
    neo4j = testNeo4j(neo4jDir);
    target = await neo4j.start(process.pid);
    db = new Database(target, { maxRetrySeconds: 10, connectTimeoutMs: 5000 });
    // The graph a user has before they start the stack.
    await new TripleWriter(db).writeEdges(graph);
    port = await findFreePort();
    emptyEnvFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-ct-')), 'empty.env');
    fs.writeFileSync(emptyEnvFile, '');
    stackEnv = {
      KGC_IMAGE: IMAGE,
      KGC_HOST_NEO4J_URI: target.uri,
      NEO4J_USER: target.user,
      NEO4J_PASSWORD: target.password,
      KGC_HTTP_PORT: String(port),
      KGC_ANONYMOUS_READS: 'true',
      KGC_RETRAIN_TIME_BUDGET: '10s',
      KGC_RETRAIN_POLL_SECONDS: '1',
      KGC_MODEL_POLL_SECONDS: '1',
    };
    await compose(['down', '-v', '--remove-orphans']);
  }, 120_000);

  afterAll(async () => {
    try {
      if (stackEnv) await compose(['down', '-v', '--remove-orphans', '--timeout', '30']);
    } finally {
      await db?.close();
      await neo4j?.stop(30_000);
      fs.rmSync(neo4jDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('is an image that runs as node, under 400 MB, without compilers, sources or tests', async () => {
    const inspect = JSON.parse(
      (await exec('docker', ['image', 'inspect', '--format', '{{json .}}', IMAGE])).stdout,
    ) as { Size: number; Config: { User: string; Cmd: string[] } };
    process.stdout.write(`image ${IMAGE}: ${(inspect.Size / 2 ** 20).toFixed(1)} MiB\n`);
    expect(inspect.Size).toBeLessThan(MAX_IMAGE_BYTES);
    expect(inspect.Config.User).toBe('node');
    expect(inspect.Config.Cmd).toEqual(['node', 'bin/kgc.js', 'serve']);
    const probe = [
      'id -un',
      'echo "app: $(ls -A /app | sort | tr "\\n" " ")"',
      'echo "engine: $(ls -A /app/engine /app/engine/node | tr "\\n" " ")"',
      'for tool in gcc cc g++ c++ clang ld make cargo rustc rustup python3 tsc; do command -v "$tool" && echo "found $tool"; done',
      'test -d /app/node_modules/typescript && echo "found typescript"',
      'test -w /var/lib/kgc && echo "state writable"',
      'node bin/kgc.js --version',
    ].join('; ');
    const { stdout } = await exec('docker', [
      'run',
      '--rm',
      '--network',
      'host',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      probe,
    ]);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('node');
    const app = (lines.find((l) => l.startsWith('app: ')) ?? '').slice(5).trim().split(' ');
    expect(app.sort()).toEqual([
      'bin',
      'dist',
      'engine',
      'migrations',
      'node_modules',
      'package.json',
    ]);
    const engine = lines.find((l) => l.startsWith('engine: ')) ?? '';
    expect(engine).not.toMatch(/target|src|Cargo/);
    expect(engine).toMatch(/\.node/);
    expect(lines.filter((l) => l.startsWith('found '))).toEqual([]);
    expect(lines).toContain('state writable');
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(stdout).toContain(version);
  });

  let firstVersion: string;

  it('migrates once, then serves after the worker trains the first version', async () => {
    await compose(['up', '-d']);
    const [migrate] = await containers('migrate');
    const migrated = await waitFor(
      async () => {
        const s = await state(migrate as string);
        return s.Status === 'exited' ? s : undefined;
      },
      120_000,
      'the migrate service to finish',
    );
    expect(migrated.ExitCode).toBe(0);
    const files = fs
      .readdirSync(path.join(REPO, 'migrations'))
      .filter((f) => f.endsWith('.cypher'));
    const applied = await migrationsApplied();
    expect(applied).toHaveLength(files.length);
    expect(applied.every((m) => m.times === 1)).toBe(true);

    await waitFor(ready, 300_000, "/readyz after the worker's first version");
    const done = (await runs()).filter((r) => r.status === 'succeeded');
    expect(done).toHaveLength(1);
    firstVersion = (await activeVersion()) ?? '(none)';
    expect(firstVersion).toBe(done[0]?.version);
  });

  it('answers missingLinks over HTTP', async () => {
    const { status, body } = await graphql(
      '{ missingLinks(entity: "e1", relation: "similar_to", k: 5) { entity { id } rank probability modelVersion } }',
    );
    expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
    const predictions = body.data?.missingLinks ?? [];
    expect(predictions).toHaveLength(5);
    expect(predictions.map((p) => p.rank)).toEqual([1, 2, 3, 4, 5]);
    for (const p of predictions) {
      expect(p.entity.id).toMatch(/^(e|class)\d+$/);
      expect(p.probability).toBeGreaterThanOrEqual(0);
      expect(p.probability).toBeLessThanOrEqual(1);
      expect(p.modelVersion).toBe(firstVersion);
    }
  });

  it('logs JSON lines on stdout (the api and the worker)', async () => {
    for (const service of ['api', 'worker']) {
      const [id] = await containers(service);
      const { stdout } = await logs(id as string);
      const lines = stdout.split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        const entry = JSON.parse(line) as { level: number; msg: string; time: string };
        expect(typeof entry.level).toBe('number');
        expect(typeof entry.msg).toBe('string');
      }
    }
  });

  it('drains a request in flight when the api stops: SIGTERM reaches serve', async () => {
    const [api] = await containers('api');
    const body = Buffer.from(JSON.stringify({ query: '{ model { version } }' }));
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) =>
      socket.once('connect', resolve).once('error', reject),
    );
    const answer = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    // Headers and half the body: the request is in flight when the signal arrives.
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    const half = Math.floor(body.length / 2);
    socket.write(body.subarray(0, half));
    const started = Date.now();
    const stopped = compose(['stop', 'api']);
    await waitFor(
      async () => ((await logs(api as string)).stdout.includes('shutting down') ? true : undefined),
      20_000,
      'the api to log its shutdown',
    );
    socket.end(body.subarray(half));
    const response = await answer;
    await stopped;
    const seconds = (Date.now() - started) / 1000;
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response).toContain(`"version":"${firstVersion}"`);
    const after = await state(api as string);
    expect(after.Status).toBe('exited');
    // A signal that reached only a shell would end in SIGKILL after the 30 s grace: 137.
    expect(after.ExitCode).toBe(0);
    expect(seconds).toBeLessThan(20);
    expect((await logs(api as string)).stdout).toContain('"msg":"stopped"');
  });

  it('serves the same active version after a restart, from the volume', async () => {
    // No promotion in between: the worker is stopped first.
    await compose(['stop', 'worker']);
    await compose(['start', 'api']);
    await waitFor(ready, 120_000, '/readyz after the restart');
    expect(await activeVersion()).toBe(firstVersion);
  });

  it('never runs two jobs at once with two worker replicas (the lease)', async () => {
    const before = new Set((await runs()).map((r) => r.id));
    // Both replicas try every 2 seconds.
    await compose(['up', '-d', '--scale', 'worker=2', 'worker'], {
      KGC_RETRAIN_CRON: '*/2 * * * * *',
    });
    const workers = await containers('worker');
    expect(workers).toHaveLength(2);
    const refused = async () => {
      const texts = await Promise.all(workers.map(async (id) => (await logs(id)).stdout));
      return texts.some((t) => t.includes('JOB_LOCKED'));
    };
    await waitFor(
      async () => {
        // Jobs that trained (promoted or kept by the gate) while the other replica tried.
        const trained = (await runs()).filter(
          (r) => !before.has(r.id) && (r.status === 'succeeded' || r.status === 'rejected'),
        );
        return trained.length >= 2 && (await refused()) ? true : undefined;
      },
      300_000,
      'two jobs to end with both replicas trying',
    );
    await compose(['stop', 'worker']);
    const all = (await runs()).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    process.stdout.write(
      `runs: ${all.map((r) => `${r.trigger} ${r.status} ${r.startedAt}..${r.endedAt}`).join('; ')}\n`,
    );
    for (let i = 1; i < all.length; i++) {
      const previous = all[i - 1] as TrainingRunRecord;
      expect(previous.endedAt).not.toBeNull();
      expect(Date.parse((all[i] as TrainingRunRecord).startedAt)).toBeGreaterThanOrEqual(
        Date.parse(previous.endedAt as string),
      );
    }
    // The second `up` ran the migrate service again: nothing was applied twice.
    expect((await migrationsApplied()).every((m) => m.times === 1)).toBe(true);
  });
});
