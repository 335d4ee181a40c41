import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, MigrationRunner } from '../../src/graph';
import type { ConnectionTarget } from '../../src/graph';
import { REPO_ROOT } from '../../src/repo-root';
import { findFreePort } from '../../src/graph/local/free-port';
import { benchNeo4jServer } from '../api/harness/neo4j-fixture';
import { datasetDir, takeDataOption } from '../datasets';
import { edgeCount, killNeo4j, printFaultRows, startCli, until } from './fault-tools';
import type { Cli, FaultRow } from './fault-tools';

/**
 * `npx tsx bench/reliability/faults-serving.ts [--data <dir>] [--dataset FB15k-237] [--epochs 2]`
 *
 * The faults bench over the newer surface (issue 59 item 6): `kgc suggest` killed mid-run;
 * `suggestions export --to-neo4j` killed, and Neo4j killed under it; `kgc serve` killed while it
 * folds new entities in, and Neo4j killed under a fold-in; `kgc ingest --bulk` killed during its
 * import. Each row says what the fault left behind (files, edges, the server's state) and what
 * the next run (or the same server, by itself) made of it. `npm run build` first: it runs the
 * built CLI. A run takes about ten minutes on 2 cores (most of it the FB15k-237 model).
 */
const FOLDED_PER_BATCH = 100;

/** Every file of a folder (recursively) with its sha256: what a fault may have changed there. */
function fingerprint(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(
      path.relative(dir, file),
      crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 12),
    );
  }
  return files;
}

function changes(before: Map<string, string>, after: Map<string, string>): string {
  const added = [...after.keys()].filter((f) => !before.has(f));
  const removed = [...before.keys()].filter((f) => !after.has(f));
  const changed = [...after.keys()].filter((f) => before.has(f) && before.get(f) !== after.get(f));
  const parts = [
    added.length ? `added ${added.join(', ')}` : '',
    removed.length ? `removed ${removed.join(', ')}` : '',
    changed.length ? `changed ${changed.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'no file changed';
}

/**
 * New entities for fold-in: copies of known entities under new names, each with the original's
 * outgoing training edges (relation and tail kept), so every edge reaches entities the model knows.
 */
function newEntityFile(
  trainLines: string[],
  prefix: string,
  count: number,
  out: string,
): { id: string; relation: string }[] {
  const byHead = new Map<string, string[][]>();
  for (const line of trainLines) {
    const [h, r, t] = line.split('\t') as [string, string, string];
    const edges = byHead.get(h) ?? [];
    edges.push([r, t]);
    byHead.set(h, edges);
  }
  const chosen = [...byHead.entries()]
    .filter(([, edges]) => edges.length >= 5)
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(0, count);
  const ids = chosen.map(([h, edges]) => ({ id: `${prefix}:${h}`, relation: edges[0]?.[0] ?? '' }));
  const rows = chosen.flatMap(([h, edges]) => edges.map(([r, t]) => `${prefix}:${h}\t${r}\t${t}`));
  fs.writeFileSync(out, rows.join('\n') + '\n');
  return ids;
}

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const option = (name: string, fallback: string) => {
    const i = rest.indexOf(name);
    return i >= 0 ? (rest[i + 1] ?? fallback) : fallback;
  };
  const dataset = datasetDir(option('--dataset', 'FB15k-237'), data);
  const epochs = option('--epochs', '2');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-faults-serving-'));
  const log = (line: string) => process.stderr.write(`[faults] ${line}\n`);
  // A fixed port: the server that is killed comes back where `kgc serve` looks for it.
  const neo4j = benchNeo4jServer(work, await findFreePort());
  let target: ConnectionTarget = await neo4j.start();
  let db = new Database(target, { maxRetrySeconds: 30, connectTimeoutMs: 5000 });
  const store = path.join(work, 'models');
  const port = await findFreePort();
  const env = (extra: Record<string, string> = {}) => ({
    NEO4J_URI: target.uri,
    NEO4J_USER: target.user,
    NEO4J_PASSWORD: target.password,
    KGC_STATE_DIR: path.join(work, 'state'),
    KGC_MODEL_STORE: store,
    KGC_HTTP_PORT: String(port),
    KGC_ANONYMOUS_READS: 'true',
    KGC_FOLD_IN_POLL_SECONDS: '1',
    KGC_MODEL_POLL_SECONDS: '1',
    ...extra,
  });
  const restartNeo4j = async () => {
    await db.close();
    target = await neo4j.start();
    db = new Database(target, { maxRetrySeconds: 30, connectTimeoutMs: 5000 });
  };
  const run = async (args: string[], what: string) => {
    const cli = startCli(args, env());
    const code = await cli.exited;
    if (code !== 0) throw new Error(`${what} failed (exit ${code}):\n${cli.output()}`);
    return cli.output();
  };
  const activeVersion = async () => {
    const result = await db.read((tx) =>
      tx.run("MATCH (m:ModelVersion {status: 'active'}) RETURN m.id AS id"),
    );
    return result.records[0]?.get('id') as string;
  };
  const suggestedTags = async () => {
    const result = await db.read((tx) =>
      tx.run(
        'MATCH (:Entity)-[s:KGC_SUGGESTED]->(:Entity) RETURN s.kgc_write AS write, count(s) AS n',
      ),
    );
    return result.records.map((r) => ({ write: r.get('write') as string, n: Number(r.get('n')) }));
  };
  const describeTags = (tags: { n: number }[]) =>
    `${tags.reduce((sum, t) => sum + t.n, 0)} KGC_SUGGESTED edges from ${tags.length} write(s)`;
  const graphql = async (query: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
  };
  const status = async (route: string) => {
    try {
      return (await fetch(`http://127.0.0.1:${port}${route}`)).status;
    } catch {
      return 0;
    }
  };
  const foldedIn = async () => {
    const body = await graphql('{ model { staleness { foldedIn } } }');
    const model = body.data?.model as { staleness: { foldedIn: number } } | undefined;
    return model?.staleness.foldedIn ?? -1;
  };
  const answersAsFolded = async ({ id, relation }: { id: string; relation: string }) => {
    const body = await graphql(
      `{ missingLinks(entity: ${JSON.stringify(id)}, relation: ${JSON.stringify(relation)}, k: 3) { foldedIn } }`,
    );
    const list = body.data?.missingLinks as { foldedIn: boolean }[] | undefined;
    return list !== undefined && list.length > 0 && list.every((p) => p.foldedIn);
  };
  const rows: FaultRow[] = [];
  const trainFile = path.join(dataset, 'train.txt');
  const trainLines = fs
    .readFileSync(trainFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  let serve: Cli | undefined;
  try {
    await new MigrationRunner(db, { dir: path.join(REPO_ROOT, 'migrations') }).migrate();
    log('ingest, train, suggest (the setting)');
    await run(['ingest', trainFile, '--format', 'tsv', '--batch-size', '5000'], 'ingest');
    await run(['train', '--epochs', epochs, '--eval-every', '0', '--force'], 'train');
    const version = await activeVersion();
    const versionDir = path.join(store, version);
    let started = Date.now();
    await run(['suggest'], 'suggest');
    const suggestSeconds = (Date.now() - started) / 1000;

    // kgc suggest, killed halfway through its usual time.
    {
      const before = fingerprint(versionDir);
      const job = startCli(['suggest'], env());
      await new Promise((r) => setTimeout(r, suggestSeconds * 500));
      job.kill();
      await job.exited;
      const left = changes(before, fingerprint(versionDir));
      const again = startCli(['suggest'], env());
      const code = await again.exited;
      const exported = startCli(
        ['suggestions', 'export', '--out', path.join(work, 'suggestions.tsv')],
        env(),
      );
      const exportCode = await exported.exited;
      const after = changes(before, fingerprint(versionDir));
      rows.push({
        fault: `kgc suggest killed (SIGKILL) after ${(suggestSeconds / 2).toFixed(1)} s of its ${suggestSeconds.toFixed(1)} s`,
        leftBehind: `version folder: ${left}`,
        after: `rerun exit ${code}; export of the stored suggestions exit ${exportCode}; version folder: ${after}`,
        // The earlier file intact after the kill; the next run cleans up what the kill left.
        ok:
          !/changed|removed/.test(left) &&
          !/added|removed/.test(after) &&
          code === 0 &&
          exportCode === 0,
      });
      log(rows.at(-1)!.fault);
    }

    // suggestions export --to-neo4j: killed, then Neo4j killed under it.
    started = Date.now();
    await run(['suggestions', 'export', '--to-neo4j'], 'export --to-neo4j');
    const exportSeconds = (Date.now() - started) / 1000;
    const full = await suggestedTags();
    const expected = full.reduce((sum, t) => sum + t.n, 0);
    for (const fault of ['the CLI killed (SIGKILL)', 'Neo4j killed']) {
      const earlier = new Set((await suggestedTags()).map((t) => t.write));
      const job = startCli(['suggestions', 'export', '--to-neo4j'], env());
      await until(
        async () => (await suggestedTags()).some((t) => !earlier.has(t.write)),
        120_000,
        100,
      );
      let code: number | null;
      let message = '';
      if (fault.startsWith('the CLI')) {
        job.kill();
        code = await job.exited;
      } else {
        await killNeo4j(neo4j, path.join(work, 'neo4j'));
        code = await job.exited;
        message = ` (${job.output().match(/\b[A-Z_]{8,}\b/)?.[0] ?? 'no code'})`;
        await restartNeo4j();
      }
      const left = await suggestedTags();
      const again = startCli(['suggestions', 'export', '--to-neo4j'], env());
      const againCode = await again.exited;
      const after = await suggestedTags();
      rows.push({
        fault: `suggestions export --to-neo4j: ${fault} mid-write (${expected} edges, ${exportSeconds.toFixed(1)} s whole)`,
        leftBehind: `exit ${code}${message}; ${describeTags(left)}`,
        after: `rerun exit ${againCode}; ${describeTags(after)}`,
        ok: againCode === 0 && after.length === 1 && after[0]?.n === expected,
      });
      log(rows.at(-1)!.fault);
    }

    // kgc serve killed while it folds new entities in; then Neo4j killed under a fold-in.
    const versionFiles = fingerprint(versionDir);
    serve = startCli(['serve'], env());
    await until(async () => (await status('/readyz')) === 200, 180_000, 200);
    {
      const file = path.join(work, 'new-1.tsv');
      const ids = newEntityFile(trainLines, 'fold1', FOLDED_PER_BATCH, file);
      await run(['ingest', file, '--format', 'tsv'], 'ingest of new entities');
      // The server polls the graph every second: the kill lands in or just before its fold-in.
      await new Promise((r) => setTimeout(r, 1000));
      const sawFold = serve.output().includes('folded in new entities');
      serve.kill();
      await serve.exited;
      const left = changes(versionFiles, fingerprint(versionDir));
      serve = startCli(['serve'], env());
      const back = await until(async () => (await status('/readyz')) === 200, 180_000, 200);
      const folded = back ? await foldedIn() : -1;
      const answers = back && (await answersAsFolded(ids[0]!));
      rows.push({
        fault: `kgc serve killed (SIGKILL) 1 s after ${ids.length} new entities were ingested (${sawFold ? 'after' : 'before'} its fold-in log line)`,
        leftBehind: `version folder: ${left}`,
        after: `restarted: ready ${back}; folded in ${folded}; a new entity answers as folded in: ${answers}`,
        ok: left === 'no file changed' && back && folded === ids.length && answers,
      });
      log(rows.at(-1)!.fault);
    }
    {
      const file = path.join(work, 'new-2.tsv');
      const ids = newEntityFile(
        trainLines.slice(trainLines.length / 2),
        'fold2',
        FOLDED_PER_BATCH,
        file,
      );
      const foldedBefore = await foldedIn();
      await run(['ingest', file, '--format', 'tsv'], 'ingest of new entities');
      await killNeo4j(neo4j, path.join(work, 'neo4j'));
      await new Promise((r) => setTimeout(r, 3000));
      const alive = serve.pid !== undefined && (await status('/healthz')) === 200;
      const readyWhileDown = await status('/readyz');
      await restartNeo4j();
      const back = await until(async () => (await status('/readyz')) === 200, 180_000, 200);
      const foldedAll = await until(
        async () => (await foldedIn()) === foldedBefore + ids.length,
        120_000,
        500,
      );
      const answers = await answersAsFolded(ids[0]!);
      rows.push({
        fault: `Neo4j killed right after ${ids.length} new entities were ingested (under the fold-in's reads)`,
        leftBehind: `serve alive: /healthz ${alive ? 200 : 'down'}, /readyz ${readyWhileDown} while Neo4j was down`,
        after: `same process, Neo4j restarted: ready ${back}; folded in ${await foldedIn()} (${foldedBefore} before); a new entity answers as folded in: ${answers}`,
        ok: alive && back && foldedAll && answers,
      });
      log(rows.at(-1)!.fault);
    }
    serve.kill();
    await serve.exited;
    serve = undefined;

    // kgc ingest --bulk killed during neo4j-admin's import, into kgc's own local Neo4j.
    {
      const state = path.join(work, 'bulk-state');
      const bulkEnv = {
        KGC_STATE_DIR: state,
        KGC_NEO4J_BOLT_PORT: String(await findFreePort()),
        KGC_NEO4J_HEAP: '1g',
        KGC_NEO4J_PAGECACHE: '512m',
      };
      const start = startCli(['neo4j', 'start'], bulkEnv);
      if ((await start.exited) !== 0) throw new Error(`kgc neo4j start failed:\n${start.output()}`);
      const bulk = startCli(['ingest', '--bulk', trainFile, '--format', 'tsv'], bulkEnv);
      const inImport = await until(() => /phase=import/.test(bulk.output()), 300_000, 50);
      await new Promise((r) => setTimeout(r, 1000));
      bulk.kill();
      await bulk.exited;
      // neo4j-admin is its child: give an orphaned import time to end.
      await new Promise((r) => setTimeout(r, 5000));
      const status1 = startCli(['neo4j', 'status'], bulkEnv);
      await status1.exited;
      const importDir = path.join(state, 'neo4j', 'local', 'import');
      const leftovers = fs.existsSync(importDir) ? fs.readdirSync(importDir) : [];
      const again = startCli(['ingest', '--bulk', trainFile, '--format', 'tsv'], bulkEnv);
      const againCode = await again.exited;
      const againSays = again.output().trim().split('\n').slice(-2).join(' ');
      const stop = startCli(['neo4j', 'stop'], bulkEnv);
      await stop.exited;
      rows.push({
        fault: `kgc ingest --bulk killed (SIGKILL) ${inImport ? '1 s into' : 'before'} neo4j-admin's import (${trainLines.length} lines)`,
        leftBehind: `server: ${status1.output().trim().split('\n')[0]}; import folder: ${leftovers.length ? leftovers.join(', ') : 'empty'}`,
        after: `rerun exit ${againCode}: ${againSays.slice(0, 240)}`,
        ok: againCode === 0 && /imported again/.test(againSays),
      });
      log(rows.at(-1)!.fault);
    }
    log(`edges in the serving graph at the end: ${await edgeCount(db)}`);
  } finally {
    serve?.kill();
    await db.close().catch(() => undefined);
    await neo4j.stop().catch(() => false);
    printFaultRows(rows);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
