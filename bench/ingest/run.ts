/**
 * Ingest benchmark: what a user's first loads cost, per dataset (train + valid + test in one
 * file), each loader on its own fresh local Neo4j 5.26 (heap 1g, page cache 512m: the defaults
 * of `kgc neo4j start`), with the product's transaction budget (120 s):
 *
 * - transactional `ingestFile` into the fresh store: 90% of the lines (every tenth held out);
 *   then, as admin decisions would, 1,000 held-out edges accepted as predictions; then the whole
 *   file into that warm store (90% present, the accepted ones confirmed as facts, the rest new);
 *   then the whole file again (a no-op);
 * - the export back to dense ids, four times (the first on a just-loaded server, then warm),
 *   checked exact against the file's distinct edges;
 * - `kgc ingest --bulk` (bulkIngest: validate, import files, neo4j-admin, restart, migrations)
 *   of the whole file into another fresh store.
 *
 *   npx tsx bench/ingest/run.ts [--data <dir>] [dataset name or dir …]   (default FB15k-237)
 *
 * Prints one table and writes bench/ingest/RESULTS.md (notes below its generated part kept).
 * Time alone: nothing else running (the load average is recorded).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { acceptPredictions, Database, type LocalNeo4j } from '../../src/graph';
import { exportDenseGraph } from '../../src/export';
import { ingestFile, type IngestSummary } from '../../src/ingest';
import { bulkIngest } from '../../src/ingest/bulk';
import { REPO_ROOT } from '../../src/repo-root';
import { datasetDir, takeDataOption } from '../datasets';
import { log, MIGRATIONS, onFreshServer } from '../scale/fresh-server';
import { describeMachine } from './machine';
import { writeResults, type Row } from './report';

/** The product's client: the default 120 s budget, so a timeout here is one a user would get. */
const CLIENT = { maxRetrySeconds: 30, connectTimeoutMs: 5000 };
const ACCEPTED = 1_000;

interface Files {
  all: string;
  firstPart: string;
  heldOut: string[][];
  lines: number;
  distinct: number;
}

function writeFiles(datasetPath: string, work: string): Files {
  const lines = ['train', 'valid', 'test'].flatMap((split) =>
    fs
      .readFileSync(path.join(datasetPath, `${split}.txt`), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== ''),
  );
  const all = path.join(work, 'all.tsv');
  const firstPart = path.join(work, 'first-90.tsv');
  fs.writeFileSync(all, `${lines.join('\n')}\n`);
  fs.writeFileSync(firstPart, `${lines.filter((_, i) => i % 10 !== 9).join('\n')}\n`);
  const kept = lines.filter((_, i) => i % 10 !== 9).map((line) => line.split('\t'));
  const known = new Set(kept.flatMap(([h, , t]) => [h, t]));
  // Predictions are accepted between entities the graph holds.
  const heldOut = lines
    .filter((_, i) => i % 10 === 9)
    .map((line) => line.split('\t'))
    .filter(([h, , t]) => known.has(h) && known.has(t));
  return { all, firstPart, heldOut, lines: lines.length, distinct: new Set(lines).size };
}

const rate = (n: number, seconds: number) => Math.round(n / seconds).toLocaleString('en');

function ingestRow(dataset: string, step: string, s: IngestSummary): Row {
  return {
    dataset,
    step,
    lines: s.triples,
    seconds: s.seconds,
    rate: rate(s.triples, s.seconds),
    note:
      `${s.written} written, ${s.alreadyPresent} present` +
      (s.confirmed > 0 ? `, ${s.confirmed} confirmed` : '') +
      `, ${s.splits} batches split`,
  };
}

async function transactional(server: LocalNeo4j, dataset: string, files: Files): Promise<Row[]> {
  const target = server.connection();
  if (!target) throw new Error('the server is not running');
  const db = new Database(target, CLIENT);
  const rows: Row[] = [];
  try {
    const first = await ingestFile(db, { file: files.firstPart });
    rows.push(ingestRow(dataset, 'transactional, fresh store (90% of lines)', first));
    const accepted = files.heldOut.slice(0, ACCEPTED).map(([head, relation, tail]) => ({
      head: head as string,
      relation: relation as string,
      tail: tail as string,
      score: null,
    }));
    await acceptPredictions(db, accepted, 'bench');
    const warm = await ingestFile(db, { file: files.all });
    rows.push(ingestRow(dataset, `transactional, warm store (all; ${ACCEPTED} accepted)`, warm));
    const again = await ingestFile(db, { file: files.all });
    rows.push(ingestRow(dataset, 'transactional, re-ingest (all present)', again));
    const exports: number[] = [];
    for (let run = 0; run < 4; run++) {
      const started = process.hrtime.bigint();
      const graph = await exportDenseGraph(db);
      exports.push(Number(process.hrtime.bigint() - started) / 1e9);
      if (graph.heads.length !== files.distinct)
        throw new Error(`exported ${graph.heads.length} edges, the file has ${files.distinct}`);
    }
    const warmExport = [...exports.slice(1)].sort((a, b) => a - b)[1] as number;
    rows.push(
      {
        dataset,
        step: 'export, first after the load',
        lines: files.distinct,
        seconds: exports[0] as number,
        rate: rate(files.distinct, exports[0] as number),
        note: 'exact (every distinct edge, once)',
      },
      {
        dataset,
        step: 'export, warm (median of runs 2-4)',
        lines: files.distinct,
        seconds: warmExport,
        rate: rate(files.distinct, warmExport),
        note: `runs ${exports.map((s) => s.toFixed(2)).join(' / ')} s`,
      },
    );
  } finally {
    await db.close();
  }
  return rows;
}

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const machine = describeMachine();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-ingest-'));
  const settings = { work, heap: '1g', pageCache: '512m' };
  const rows: Row[] = [];
  try {
    for (const [i, name] of (rest.length > 0 ? rest : ['FB15k-237']).entries()) {
      const datasetPath = datasetDir(name, data);
      const dataset = path.basename(datasetPath);
      const files = writeFiles(datasetPath, fs.mkdtempSync(path.join(work, 'files-')));
      log(`${dataset}: ${files.lines} lines, ${files.distinct} distinct edges`);
      const tx = await onFreshServer(`tx-${i}`, settings, (server) =>
        transactional(server, dataset, files),
      );
      const bulk = await onFreshServer(`bulk-${i}`, settings, (server) =>
        bulkIngest(server, { files: [files.all], migrationsDir: MIGRATIONS, client: CLIENT }),
      );
      const fresh = tx[0] as Row;
      rows.push(...tx, {
        dataset,
        step: 'kgc ingest --bulk (validate, import, restart, migrate)',
        lines: files.lines,
        seconds: bulk.seconds,
        rate: rate(files.lines, bulk.seconds),
        note:
          `${(fresh.seconds / fresh.lines / (bulk.seconds / files.lines)).toFixed(2)}x the fresh ` +
          `transactional rate; ${Object.entries(bulk.phases)
            .map(([phase, seconds]) => `${phase} ${seconds.toFixed(1)} s`)
            .join(', ')}`,
      });
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  writeResults(path.join(REPO_ROOT, 'bench', 'ingest', 'RESULTS.md'), rows, machine);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
