import { relationCounts, type Database, type EdgeFilter } from '../graph';
import { exportDenseGraph } from './dense-graph';
import type { ExportProgress } from './export-progress';
import { splitTriples, type SplitOptions } from './split';
import { LABELS_FILE, writeLabelFile } from './label-file';
import { writeTripleFiles } from './write-triple-files';

export interface ExportOptions {
  out: string;
  filter?: EdgeFilter;
  /** undefined: one triples.txt, no split. */
  split?: SplitOptions;
  onProgress?: (progress: ExportProgress) => void;
}

export interface ExportSummary {
  out: string;
  entities: number;
  relations: number;
  triples: number;
  files: Record<string, number>;
  /** Streaming the edges out of Neo4j into dense ids. */
  streamSeconds: number;
  seconds: number;
}

/** `kgc export`: the graph out of Neo4j into TSV files, split or whole. */
export async function exportToFiles(db: Database, options: ExportOptions): Promise<ExportSummary> {
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  const report = options.onProgress;
  // The count store answers in constant time; only asked when someone shows progress.
  const edgeTotal = report ? await edgeCount(db, options.filter) : 0;
  const graph = await exportDenseGraph(
    db,
    options.filter,
    report && ((done) => report({ phase: 'stream', done, total: edgeTotal, seconds: seconds() })),
  );
  const streamSeconds = seconds();
  const parts = options.split
    ? Object.entries(splitTriples(graph, options.split)).map(([name, indexes]) => ({
        name: `${name}.txt`,
        indexes,
      }))
    : [{ name: 'triples.txt' }];
  // All files or none: a failed export (a full disk) leaves the folder as it was.
  let written = 0;
  const files = await writeTripleFiles(options.out, graph, parts, (_name, count) => {
    written += count;
    report?.({ phase: 'write', done: written, total: graph.heads.length, seconds: seconds() });
  });
  const labelled = await writeLabelFile(db, options.out, graph.entities);
  if (labelled > 0) files[LABELS_FILE] = labelled;
  return {
    out: options.out,
    entities: graph.entities.length,
    relations: graph.relationNames.length,
    triples: graph.heads.length,
    files,
    streamSeconds,
    seconds: seconds(),
  };
}

/** Edges of the filter's relation types, from the count store (predictions included). */
async function edgeCount(db: Database, filter: EdgeFilter = {}): Promise<number> {
  const wanted = filter.relations && new Set(filter.relations);
  return (await relationCounts(db))
    .filter((r) => !wanted || wanted.has(r.name))
    .reduce((sum, r) => sum + r.edgeCount, 0);
}
