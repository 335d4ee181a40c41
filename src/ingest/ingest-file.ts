import path from 'node:path';
import { ErrorCode, KgcError } from '../errors';
import {
  TripleWriter,
  writeEntityLabels,
  type Database,
  type LabelRow,
  type PropertyRow,
  type TripleRow,
} from '../graph';
import { openLineSource, type LineSource } from './line-source';
import { parseSourceLine } from './parse-source-line';
import type { IngestProgress } from './ingest-progress';
import type { IngestFormat, LineParser, ParsedLine } from './parsed-line';
import { DEFAULT_CSV_COLUMNS, type CsvColumns } from './parsers/csv-parser';
import { LabelsParser } from './parsers/labels-parser';
import { createParser, formatFromPath } from './parsers/parser-for';
import { RejectFile } from './reject-file';
import { BatchSizer } from './batch-sizer';
import { writeBatch, type BatchSplit } from './write-batch';

export interface IngestOptions {
  file: string;
  /** Defaults to the file's extension (tsv when unknown). */
  format?: IngestFormat;
  /** The file is a label file (`id<TAB>Label[;Label…]`), not triples; `format` is ignored. */
  labels?: boolean;
  columns?: CsvColumns;
  /** Write the good lines and send bad ones to `rejectPath`; default: all or nothing. */
  skipInvalid?: boolean;
  /** Defaults to `<file>.rejects.tsv`. */
  rejectPath?: string;
  /**
   * The most triples per write transaction; batches are sized below it by their measured time
   * (batch-sizer.ts).
   */
  batchSize?: number;
  /** Longer lines are bad lines (default DEFAULT_MAX_LINE_BYTES, 1 MiB): memory stays bounded. */
  maxLineBytes?: number;
  onProgress?: (progress: IngestProgress) => void;
  /** A batch ran past its time limit and is written again in two halves. */
  onSplit?: (split: BatchSplit) => void;
}

export interface IngestSummary {
  file: string;
  format: IngestFormat;
  /** Lines read, blank and comment lines included. */
  lines: number;
  /** Valid edge lines. */
  triples: number;
  /** Edges this run created. */
  written: number;
  /** Edge lines whose edge was already in the graph (or earlier in the file). */
  alreadyPresent: number;
  /** Of those, accepted predictions this run turned into facts (no longer revertible). */
  confirmed: number;
  /** Edges not written because an endpoint entity was deleted while the ingest ran. */
  failed: number;
  /** N-Triples literal lines (entity properties) written. */
  properties: number;
  /** Label-file lines and N-Triples `rdf:type` lines written (labels added to an entity). */
  labelled: number;
  /** Bad lines (only with skipInvalid; strict mode fails instead). */
  skipped: number;
  /** Batches that ran past their time limit and were split (0 on a healthy server). */
  splits: number;
  rejectFile?: string;
  seconds: number;
}

/**
 * The largest batch. Bigger batches amortise per-transaction costs (measured on FB15k-237: 5k
 * rows per batch about 1.5x slower than 25k; 50k about 1.1x faster than 25k). 50k edges is a
 * few tens of MB of transaction state on the server.
 */
export const DEFAULT_BATCH_SIZE = 50_000;
/** Bad lines quoted in a strict-mode failure; the rest are counted. */
const QUOTED_ERRORS = 3;

type LineVisitor = (
  lineNumber: number,
  text: string | null,
  parsed: ParsedLine,
) => void | Promise<void>;

/**
 * Loads one triple file. Strict (default): a first pass validates every line and nothing is
 * written if any is bad. The write pass is idempotent batch by batch, so a run that was killed
 * can simply be run again: it converges to the graph a clean run gives.
 */
export async function ingestFile(db: Database, options: IngestOptions): Promise<IngestSummary> {
  const started = Date.now();
  const format = options.format ?? formatFromPath(options.file);
  const source = await openLineSource(options.file, options.maxLineBytes);
  const progress = options.onProgress ?? (() => undefined);
  const newParser = (): LineParser =>
    options.labels
      ? new LabelsParser()
      : createParser(format, options.columns ?? DEFAULT_CSV_COLUMNS);
  const name = path.basename(options.file);

  if (!options.skipInvalid) {
    const problems: string[] = [];
    let bad = 0;
    await visit(source, newParser(), progress, 'validate', started, (n, _text, parsed) => {
      if (parsed.kind !== 'invalid') return;
      if (parsed.fatal)
        throw new KgcError(ErrorCode.INGEST_INVALID_INPUT, `${name}:${n}: ${parsed.reason}.`);
      bad += 1;
      if (problems.length < QUOTED_ERRORS) problems.push(`${name}:${n}: ${parsed.reason}`);
    });
    if (bad > 0) {
      const more = bad > problems.length ? ` (and ${bad - problems.length} more bad lines)` : '';
      throw new KgcError(
        ErrorCode.INGEST_INVALID_INPUT,
        `${problems.join('; ')}${more}. Nothing was written: fix the file or rerun with --skip-invalid.`,
      );
    }
  }

  const summary: IngestSummary = {
    file: options.file,
    format,
    lines: 0,
    triples: 0,
    written: 0,
    alreadyPresent: 0,
    confirmed: 0,
    failed: 0,
    properties: 0,
    labelled: 0,
    skipped: 0,
    splits: 0,
    seconds: 0,
  };
  const writer = new TripleWriter(db);
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const sizer = new BatchSizer(batchSize, db.transactionBudgetMs);
  const onSplit = options.onSplit ?? (() => undefined);
  const rejects = options.skipInvalid
    ? new RejectFile(options.rejectPath ?? `${options.file}.rejects.tsv`)
    : undefined;
  let edges: TripleRow[] = [];
  let props: PropertyRow[] = [];
  let labels: LabelRow[] = [];
  const flush = async () => {
    if (edges.length > 0) {
      const result = await writeBatch(writer, edges, sizer, onSplit);
      summary.splits += result.splits;
      summary.written += result.created;
      summary.alreadyPresent += result.present + result.duplicates;
      summary.confirmed += result.confirmed;
      summary.failed += result.failed;
      edges = [];
    }
    if (props.length > 0) {
      await writer.writeProperties(props);
      summary.properties += props.length;
      props = [];
    }
    if (labels.length > 0) {
      await writeEntityLabels(db, labels);
      summary.labelled += labels.length;
      labels = [];
    }
  };
  try {
    summary.lines = await visit(
      source,
      newParser(),
      progress,
      'write',
      started,
      async (n, text, parsed) => {
        switch (parsed.kind) {
          case 'edge':
            summary.triples += 1;
            edges.push([parsed.head, parsed.relation, parsed.tail]);
            break;
          case 'property':
            props.push([parsed.entity, parsed.key, parsed.value]);
            break;
          case 'labels':
            labels.push([parsed.entity, parsed.labels]);
            break;
          case 'invalid':
            if (parsed.fatal)
              throw new KgcError(ErrorCode.INGEST_INVALID_INPUT, `${name}:${n}: ${parsed.reason}.`);
            summary.skipped += 1;
            rejects?.add(n, parsed.reason, text);
            break;
          case 'skip':
            break;
        }
        if (edges.length >= sizer.size || Math.max(props.length, labels.length) >= batchSize)
          await flush();
      },
    );
    await flush();
  } finally {
    await rejects?.close();
  }
  if (rejects && rejects.count > 0) summary.rejectFile = rejects.path;
  summary.seconds = (Date.now() - started) / 1000;
  return summary;
}

/** Feeds every line to `onLine` with its 1-based number; returns the number of lines. */
async function visit(
  source: LineSource,
  parser: LineParser,
  progress: (progress: IngestProgress) => void,
  phase: IngestProgress['phase'],
  started: number,
  onLine: LineVisitor,
): Promise<number> {
  let lineNumber = 0;
  let triples = 0;
  for await (const chunk of source.chunks()) {
    for (const text of chunk) {
      lineNumber += 1;
      const parsed = parseSourceLine(parser, text);
      if (parsed.kind === 'edge') triples += 1;
      const pending = onLine(lineNumber, typeof text === 'string' ? text : null, parsed);
      if (pending) await pending;
    }
    progress({
      phase,
      fraction: source.size > 0 ? source.bytesRead() / source.size : 1,
      lines: lineNumber,
      triples,
      seconds: (Date.now() - started) / 1000,
    });
  }
  return lineNumber;
}
