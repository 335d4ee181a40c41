import path from 'node:path';
import type { Database, EdgeFilter } from '../graph';
import { exportDenseGraph } from './dense-graph';
import { splitTriples, type SplitOptions } from './split';
import { writeTripleFile } from './write-triple-files';

export interface ExportOptions {
  out: string;
  filter?: EdgeFilter;
  /** undefined: one triples.txt, no split. */
  split?: SplitOptions;
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
  const graph = await exportDenseGraph(db, options.filter);
  const streamSeconds = (Date.now() - started) / 1000;
  const files: Record<string, number> = {};
  if (options.split) {
    const parts = splitTriples(graph, options.split);
    for (const [name, indexes] of Object.entries(parts)) {
      files[`${name}.txt`] = await writeTripleFile(
        path.join(options.out, `${name}.txt`),
        graph,
        indexes,
      );
    }
  } else {
    files['triples.txt'] = await writeTripleFile(path.join(options.out, 'triples.txt'), graph);
  }
  return {
    out: options.out,
    entities: graph.entities.length,
    relations: graph.relationNames.length,
    triples: graph.heads.length,
    files,
    streamSeconds,
    seconds: (Date.now() - started) / 1000,
  };
}
