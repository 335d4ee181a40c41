/**
 * How far `exportToFiles` is: edges streamed out of Neo4j, then triples written. `total` is the
 * count store's edge count while streaming (an estimate: it includes edges the filter drops), so
 * `done` may end below it. Export only reports; the CLI draws it.
 */
export interface ExportProgress {
  phase: 'stream' | 'write';
  done: number;
  total: number;
  seconds: number;
}
