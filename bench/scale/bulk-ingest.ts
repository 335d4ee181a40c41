/**
 * First load of a generated graph (bench/scale/scale-graph.ts) two ways, each into a fresh local
 * Neo4j 5.26 (same jars, heap and page cache), in one run: `kgc ingest --bulk` (bulkIngest:
 * validate + import files, stop, neo4j-admin import, start, migrations) and the transactional
 * ingest (ingestFile per file). Both start from a running, migrated, empty server. Then the
 * export (the retraining job's first step: every edge as dense ids) of the bulk-loaded graph,
 * `--exports` times on the same server (the first after the load, then warm).
 *
 *   npx tsx bench/scale/bulk-ingest.ts [--edges 1000000] [--entities <edges/10>] [--seed 1]
 *     [--heap 1g] [--pagecache 512m] [--bulk-only] [--exports 3]
 *
 * Prints a table (triples, seconds, triples/s, speed relative to the transactional ingest), the
 * bulk load's steps, the exports (seconds, edges/s, this process's peak RSS), and the machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ingestFile } from '../../src/ingest';
import { bulkIngest, type BulkIngestSummary } from '../../src/ingest/bulk';
import { bulkIngestProgress } from '../../src/cli/progress/bulk-ingest-progress';
import { describeMachine } from '../ingest/machine';
import {
  CLIENT,
  connect,
  log,
  MIGRATIONS,
  onFreshServer,
  timeExports,
  type ExportRun,
} from './fresh-server';
import { writeScaleGraph } from './write-scale-graph';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      edges: { type: 'string', default: '1000000' },
      entities: { type: 'string' },
      seed: { type: 'string', default: '1' },
      heap: { type: 'string', default: '1g' },
      pagecache: { type: 'string', default: '512m' },
      'bulk-only': { type: 'boolean', default: false },
      exports: { type: 'string', default: '3' },
    },
  });
  const edges = Number(values.edges);
  const entities = values.entities !== undefined ? Number(values.entities) : Math.round(edges / 10);
  const machine = describeMachine();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-bench-scale-'));
  const settings = { work, heap: values.heap, pageCache: values.pagecache };
  try {
    const graph = writeScaleGraph(path.join(work, 'graph'), {
      entities,
      edges,
      seed: Number(values.seed),
    });
    const files = [graph.splits.train, graph.splits.valid, graph.splits.test];
    log(`generated ${edges} triples over ${entities} entities in ${graph.seconds.toFixed(1)} s`);

    const progress = bulkIngestProgress();
    const exports: ExportRun[] = [];
    const bulk = await onFreshServer('bulk', settings, async (server) => {
      const summary = await bulkIngest(server, {
        files,
        labels: graph.labels,
        migrationsDir: MIGRATIONS,
        client: CLIENT,
        onProgress: (p) => progress.report(p),
      }).finally(() => progress.stop());
      exports.push(...(await timeExports(server, Number(values.exports))));
      return summary;
    });
    const rows: Row[] = [['kgc ingest --bulk', edges, bulk.seconds]];
    if (!values['bulk-only']) {
      const seconds = await onFreshServer('transactional', settings, async (server) => {
        const db = connect(server);
        try {
          const started = Date.now();
          for (const file of files) await ingestFile(db, { file });
          await ingestFile(db, { file: graph.labels, labels: true });
          return (Date.now() - started) / 1000;
        } finally {
          await db.close();
        }
      });
      rows.push(['kgc ingest (transactional)', edges, seconds]);
    }
    report(rows, bulk, entities, machine, exports);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

type Row = [loader: string, triples: number, seconds: number];

function report(
  rows: Row[],
  bulk: BulkIngestSummary,
  entities: number,
  machine: Record<string, string>,
  exports: ExportRun[],
): void {
  const transactional = rows.find(([loader]) => loader.includes('transactional'))?.[2];
  const table = [
    ['loader', 'triples', 'seconds', 'triples/s', 'speed vs transactional'],
    ...rows.map(([loader, triples, seconds]) => [
      loader,
      triples.toLocaleString('en'),
      seconds.toFixed(1),
      Math.round(triples / seconds).toLocaleString('en'),
      transactional !== undefined ? `${(transactional / seconds).toFixed(2)}x` : '-',
    ]),
  ];
  const widths = (table[0] as string[]).map((_, c) =>
    Math.max(...table.map((r) => (r[c] as string).length)),
  );
  const line = (r: string[]) =>
    r
      .map((cell, c) =>
        c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number),
      )
      .join('  ');
  const phases = Object.entries(bulk.phases)
    .map(([phase, seconds]) => `${phase} ${seconds.toFixed(1)} s`)
    .join(', ');
  process.stdout.write(
    [
      `First load of a generated graph: ${entities.toLocaleString('en')} entities (with labels), fresh local Neo4j each`,
      ...table.map(line),
      '',
      `bulk steps: ${phases}`,
      '',
      'export of the bulk-loaded graph (every edge to dense ids; the first right after the load):',
      ...exports.map(
        (e, i) =>
          `  run ${i + 1}: ${e.edges.toLocaleString('en')} edges, ${e.seconds.toFixed(1)} s, ` +
          `${Math.round(e.edges / e.seconds).toLocaleString('en')} edges/s, ` +
          `client CPU ${e.clientCpuSeconds.toFixed(1)} s, peak RSS ${Math.round(e.peakRssMiB)} MiB`,
      ),
      '',
      'machine:',
      ...Object.entries(machine).map(([k, v]) => `  ${k}: ${v}`),
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
