/**
 * The plan of every ingest query, PROFILEd (run, then rolled back) with a real 50,000-line batch,
 * on a fresh store (the batch's entities committed, no relationships: what the first batches are
 * planned against) and on a warm one (the whole graph loaded), with the operators' rows and
 * database hits. A plan whose hits grow with a hub's degree, or that scans, shows here.
 *
 *   npx tsx bench/ingest/plans.ts [--data <dir>] [dataset name or dir]   (default FB15k-237)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, TripleWriter, type LocalNeo4j, type TripleRow } from '../../src/graph';
import { rowsInLockOrder } from '../../src/graph/lock-order';
import { SOURCE_PARAMS } from '../../src/graph/predictions/provenance';
import * as queries from '../../src/graph/triples/ingest-queries';
import { datasetDir, takeDataOption } from '../datasets';
import { onFreshServer } from '../scale/fresh-server';

const BATCH = 50_000;

interface ProfiledPlan {
  operatorType: string;
  arguments: Record<string, unknown>;
  dbHits: number;
  rows: number;
  children: ProfiledPlan[];
}

function describe(plan: ProfiledPlan, depth = 0): string[] {
  const details = String(plan.arguments.Details ?? '').slice(0, 100);
  const op = plan.operatorType.replace(/@.*$/, '');
  return [
    `${'  '.repeat(depth)}${op} rows=${plan.rows} hits=${plan.dbHits} ${details}`,
    ...plan.children.flatMap((child) => describe(child, depth + 1)),
  ];
}

const totalHits = (plan: ProfiledPlan): number =>
  plan.dbHits + plan.children.reduce((sum, child) => sum + totalHits(child), 0);

/** PROFILEs the batch's queries in one transaction and rolls it back. */
async function profile(db: Database, label: string, batch: TripleRow[]): Promise<void> {
  const rows = rowsInLockOrder([...batch]);
  const heads = [...new Set(rows.map(([h]) => h))];
  const session = db.openSession('WRITE');
  const tx = session.beginTransaction();
  try {
    const steps: [string, string, Record<string, unknown>][] = [
      ['LOCK_HEADS', queries.LOCK_HEADS, { ids: heads }],
      ['CREATE_MISSING_EDGES', queries.CREATE_MISSING_EDGES, { rows }],
      [
        'CONFIRM_ACCEPTED_PREDICTIONS',
        queries.CONFIRM_ACCEPTED_PREDICTIONS,
        { rows, ...SOURCE_PARAMS },
      ],
      ['COUNT_MISSING_ENDPOINTS', queries.COUNT_MISSING_ENDPOINTS, { rows }],
    ];
    for (const [name, query, params] of steps) {
      const started = Date.now();
      const result = await tx.run(`PROFILE ${query}`, params);
      const plan = result.summary.profile as unknown as ProfiledPlan;
      process.stdout.write(
        `== ${label}: ${name}, ${Date.now() - started} ms, ${totalHits(plan)} db hits\n` +
          `${describe(plan).join('\n')}\n`,
      );
    }
  } finally {
    await tx.rollback();
    await session.close();
  }
}

async function walk(server: LocalNeo4j, lines: TripleRow[]): Promise<void> {
  const target = server.connection();
  if (!target) throw new Error('the server is not running');
  const db = new Database(target, { maxRetrySeconds: 30, connectTimeoutMs: 5000 });
  try {
    const first = lines.slice(0, BATCH);
    const ids = [...new Set(first.flatMap(([h, , t]) => [h, t]))].sort();
    await db.write((tx) => tx.run(queries.MERGE_ENTITIES, { ids }));
    await profile(db, 'fresh store', first);
    const writer = new TripleWriter(db);
    for (let i = 0; i < lines.length; i += BATCH)
      await writer.writeEdges(lines.slice(i, i + BATCH));
    await profile(db, 'warm store', first);
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const dir = datasetDir(rest[0] ?? 'FB15k-237', data);
  const lines = ['train', 'valid', 'test'].flatMap((split) =>
    fs
      .readFileSync(path.join(dir, `${split}.txt`), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.split('\t') as TripleRow),
  );
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-plans-'));
  try {
    process.stdout.write(`${path.basename(dir)}: ${lines.length} lines\n`);
    await onFreshServer('plans', { work, heap: '1g', pageCache: '512m' }, (server) =>
      walk(server, lines),
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
