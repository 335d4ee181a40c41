/**
 * Ingest benchmark: FB15k-237 train+valid+test (310,116 triples) into an empty local Neo4j
 * through `ingestFile`, exported back through `exportDenseGraph` / `exportToFiles`, and, in the
 * same run on the same jars, loaded by `neo4j-admin database import full`.
 *
 *   npx tsx bench/ingest/run.ts [--data <dir>] [dataset name or dir]    (default FB15k-237)
 *
 * Prints a table and writes bench/ingest/RESULTS.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, LocalNeo4j, MigrationRunner } from '../../src/graph';
import { REPO_ROOT } from '../../src/repo-root';
import { runAdminImport } from '../../src/graph/local/admin-import';
import { exportDenseGraph, exportToFiles } from '../../src/export';
import { ingestFile } from '../../src/ingest';
import { writeImportFiles } from '../../src/ingest/bulk';
import { datasetDir as findDataset, takeDataOption } from '../datasets';
import { describeMachine } from './machine';

type Triple = [string, string, string];

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const datasetDir = findDataset(rest[0] ?? 'FB15k-237', data);
  const machine = describeMachine();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-ingest-'));
  const input = path.join(work, 'fb15k-237-all.tsv');
  fs.writeFileSync(
    input,
    ['train', 'valid', 'test']
      .map((s) => fs.readFileSync(path.join(datasetDir, `${s}.txt`), 'utf8'))
      .join(''),
  );
  const triples = fs
    .readFileSync(input, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t') as Triple);
  const cacheDir = process.env.KGC_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'kgc');
  const server = new LocalNeo4j({
    dir: path.join(work, 'neo4j'),
    cacheDir,
    javaHome: process.env.JAVA_HOME,
    boltPort: 0,
    heap: '1g',
    pageCache: '512m',
    database: 'neo4j',
    log: (line) => process.stderr.write(`[neo4j] ${line}\n`),
  });
  const rows: [string, string][] = [];
  try {
    const target = await server.start();
    const db = new Database(target, { maxRetrySeconds: 30, connectTimeoutMs: 5000 });
    try {
      await new MigrationRunner(db, { dir: path.join(REPO_ROOT, 'migrations') }).migrate();
      const ingest = await ingestFile(db, { file: input });
      if (ingest.written !== triples.length)
        throw new Error(`wrote ${ingest.written} of ${triples.length}`);
      const reingest = await ingestFile(db, { file: input });
      // Four times: the first export on a just-started server pays query planning and JIT
      // warm-up of the read path (server and driver); the retraining job exports from a
      // long-running server, whose rate is the median of runs 2-4.
      const streamSeconds: number[] = [];
      for (let run = 0; run < 4; run++) {
        const streamStart = Date.now();
        const graph = await exportDenseGraph(db);
        streamSeconds.push((Date.now() - streamStart) / 1000);
        if (graph.heads.length !== triples.length)
          throw new Error(`exported ${graph.heads.length}`);
      }
      const coldSeconds = streamSeconds[0] ?? 0;
      const warmSeconds = median(streamSeconds.slice(1));
      const files = await exportToFiles(db, {
        out: path.join(work, 'export'),
        split: { seed: 42, validFraction: 0.05, testFraction: 0.05 },
      });
      rows.push(
        ['triples', triples.length.toLocaleString('en')],
        ['ingest (validate + write), s', ingest.seconds.toFixed(2)],
        ['ingest, triples/s', Math.round(triples.length / ingest.seconds).toLocaleString('en')],
        ['re-ingest (all present), s', reingest.seconds.toFixed(2)],
        ['export to dense ids (stream, first on this server), s', coldSeconds.toFixed(2)],
        [
          'export to dense ids (first), triples/s',
          Math.round(triples.length / coldSeconds).toLocaleString('en'),
        ],
        ['export to dense ids (stream, median of runs 2-4), s', warmSeconds.toFixed(2)],
        ['export runs 1-4, s', streamSeconds.map((x) => x.toFixed(2)).join(' / ')],
        [
          'export to dense ids (runs 2-4), triples/s',
          Math.round(triples.length / warmSeconds).toLocaleString('en'),
        ],
        ['export + split + 3 TSV files, s', files.seconds.toFixed(2)],
      );
    } finally {
      await db.close();
    }
  } finally {
    await server.stop();
  }
  // The files and the import `kgc ingest --bulk` runs (src/ingest/bulk), on the same jars.
  const csvStart = Date.now();
  const csvDir = fs.mkdtempSync(path.join(work, 'admin-csv-'));
  const { files: csvFiles } = await writeImportFiles(csvDir, { files: [input] });
  const csvSeconds = (Date.now() - csvStart) / 1000;
  const adminStart = Date.now();
  await runAdminImport(server.adminCommand(), 'neo4j', csvFiles, {
    reportFile: path.join(csvDir, 'import.report'),
  });
  const adminSeconds = (Date.now() - adminStart) / 1000;
  const ingestSeconds = Number(rows[1]?.[1]);
  rows.push(
    ['neo4j-admin import full (wall, JVM start included), s', adminSeconds.toFixed(2)],
    ['neo4j-admin, triples/s', Math.round(triples.length / adminSeconds).toLocaleString('en')],
    ['validating and writing its CSV input (not counted), s', csvSeconds.toFixed(2)],
    ['ingest time / neo4j-admin time', (ingestSeconds / adminSeconds).toFixed(2)],
  );
  fs.rmSync(work, { recursive: true, force: true });
  report(rows, machine);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const NOTES_HEADING = '## Reading these numbers';

function report(rows: [string, string][], machine: Record<string, string>): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  const table = rows.map(([k, v]) => `${k.padEnd(width)}  ${v.padStart(12)}`).join('\n');
  process.stdout.write(`${table}\n`);
  const md = [
    '# Ingest / export benchmark',
    '',
    'FB15k-237 train+valid+test (310,116 triples) into an empty local Neo4j 5.26 (heap 1g, page',
    'cache 512m, same jars for both loaders). Produced by `npx tsx bench/ingest/run.ts`',
    `on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| measure | value |',
    '|---|---:|',
    ...rows.map(([k, v]) => `| ${k} | ${v} |`),
    '',
    '## Machine',
    '',
    ...Object.entries(machine).map(([k, v]) => `- ${k}: ${v}`),
    '',
  ].join('\n');
  // Notes written by hand below the generated part survive a rerun.
  const file = path.join(REPO_ROOT, 'bench', 'ingest', 'RESULTS.md');
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const notes = previous.indexOf(NOTES_HEADING);
  fs.writeFileSync(file, notes >= 0 ? `${md}${previous.slice(notes)}` : md);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
