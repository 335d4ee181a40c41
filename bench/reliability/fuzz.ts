import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../../src/server/api-keys';
import { resolveTrainingConfig, train } from '../../src/model';
import { suggestVersion } from '../../src/jobs/suggest-version';
import { takeDataOption, datasetDir } from '../datasets';
import { ingestFiles, neo4jEnv, startBenchNeo4j } from '../api/harness/neo4j-fixture';
import { logErrors, startApiProcess } from '../api/harness/server-process';
import { readPairs, seededRandom } from '../api/harness/workload';
import { fuzzRequest, Picker } from './fuzz-cases';

/**
 * `npx tsx bench/reliability/fuzz.ts [--data <dir>] [--dataset Nations] [--requests N] [--seed S]`
 *
 * Starts its own Neo4j, ingests a small graph, trains one epoch, runs `kgc serve` as a child
 * process with an admin and a reader key, and sends N seeded random and mutated requests.
 * Passes when the server never crashed, answered every request, gave no 5xx (none is documented
 * while the database is up), leaked no stack trace or internal path, and is alive at the end.
 */
const INTERNALS = /\n\s+at |\/work\/|node_modules|\.ts:\d+|stacktrace|bolt:\/\//;

function option(argv: string[], name: string, fallback: string): string {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? (argv[i + 1] as string) : fallback;
}

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const dataset = datasetDir(option(rest, '--dataset', 'Nations'), data);
  const requests = Number(option(rest, '--requests', '5000'));
  const seed = Number(option(rest, '--seed', '1'));
  const log = (line: string) => process.stderr.write(`[fuzz] ${line}\n`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-fuzz-'));
  const neo = await startBenchNeo4j(work);
  const admin = createApiKey('fuzz-admin', 'admin');
  const reader = createApiKey('fuzz-reader', 'reader');
  let server: Awaited<ReturnType<typeof startApiProcess>> | undefined;
  try {
    const trainFile = path.join(dataset, 'train.txt');
    await ingestFiles(neo.db, [trainFile], work);
    const modelDir = path.join(work, 'model');
    await train({ dir: dataset }, resolveTrainingConfig('default', { epochs: 1, evalEvery: 0 }), {
      outDir: modelDir,
    });
    // Stored suggestions: reviewQueue and reviewStats have lists to page and count.
    await suggestVersion(neo.db, modelDir, path.basename(modelDir), { perRelation: 40 });
    server = await startApiProcess({
      args: ['--model', modelDir],
      env: { ...neo4jEnv(neo.target), KGC_API_KEYS: `${admin.entry},${reader.entry}` },
      work,
    });
    const pairs = readPairs(trainFile);
    const context = {
      entities: [...new Set(pairs.map((p) => p.entity))],
      relations: [...new Set(pairs.map((p) => p.relation))],
      adminKey: admin.key,
      readerKey: reader.key,
    };
    const picker = new Picker(seededRandom(seed));
    const statuses = new Map<string, number>();
    const codes = new Map<string, number>();
    let serverErrors = 0;
    let leaks = 0;
    let noAnswer = 0;
    let internal = 0;
    const internalSamples: string[] = [];
    let firstBad: string | null = null;
    const started = Date.now();
    for (let n = 0; n < requests; n++) {
      const request = fuzzRequest(context, picker);
      let status: number;
      let text = '';
      try {
        const response = await fetch(`${server.base}${request.path}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          signal: AbortSignal.timeout(30_000),
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        noAnswer += 1;
        firstBad ??= `${request.kind}: no answer (${String(error)})`;
        continue;
      }
      const bucket = `${request.kind} ${status}`;
      statuses.set(bucket, (statuses.get(bucket) ?? 0) + 1);
      if (status >= 500) {
        serverErrors += 1;
        firstBad ??= `${request.kind}: ${status} ${text.slice(0, 300)}`;
      }
      if (INTERNALS.test(text)) {
        leaks += 1;
        firstBad ??= `${request.kind}: internals in ${text.slice(0, 300)}`;
      }
      if (text.includes('"code":"INTERNAL"')) {
        internal += 1;
        if (internal <= 3)
          internalSamples.push(`${request.method} ${request.path} ${request.body ?? ''}`);
      }
      for (const match of text.matchAll(/"code":"([A-Z_]+)"/g)) {
        codes.set(match[1] as string, (codes.get(match[1] as string) ?? 0) + 1);
      }
      if (n % 500 === 499) log(`${n + 1}/${requests} requests`);
    }
    const seconds = (Date.now() - started) / 1000;
    const health = await fetch(`${server.base}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    const errors = logErrors(server.logFile);

    console.log(
      `\nGraphQL fuzz: ${requests} requests, seed ${seed}, ${dataset} (${seconds.toFixed(0)} s)`,
    );
    console.log(
      `machine: ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, load ${os.loadavg()[0]!.toFixed(2)}`,
    );
    console.log('\n| generator and status | responses |\n|---|---:|');
    for (const [bucket, count] of [...statuses].sort()) console.log(`| ${bucket} | ${count} |`);
    console.log('\n| error code | count |\n|---|---:|');
    for (const [code, count] of [...codes].sort((a, b) => b[1] - a[1]))
      console.log(`| ${code} | ${count} |`);
    console.log(
      `\nno answer: ${noAnswer}; 5xx: ${serverErrors}; INTERNAL: ${internal}; internals leaked: ${leaks}`,
    );
    console.log(
      `server alive after: /healthz ${health}; error lines in its log: ${JSON.stringify(errors.counts)}`,
    );
    if (firstBad) console.log(`first bad response: ${firstBad}`);
    for (const sample of internalSamples) console.log(`INTERNAL for: ${sample.slice(0, 600)}`);
    const loggedErrors = Object.values(errors.counts).reduce((a, b) => a + b, 0);
    const errorLines = fs
      .readFileSync(server.logFile, 'utf8')
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line));
    for (const line of errorLines.slice(0, 2))
      console.log(`server error line: ${line.slice(0, 1500)}`);
    const pass =
      noAnswer === 0 &&
      serverErrors === 0 &&
      leaks === 0 &&
      internal === 0 &&
      loggedErrors === 0 &&
      health === 200;
    console.log(pass ? 'PASS' : 'FAIL');
    process.exitCode = pass ? 0 : 1;
  } finally {
    await server?.stop();
    await neo.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
