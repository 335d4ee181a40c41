import path from 'node:path';
import { ErrorCode, KgcError } from '../../errors';
import { openLineSource, type LineSource } from '../line-source';
import { parseSourceLine } from '../parse-source-line';
import type { IngestFormat, LineParser } from '../parsed-line';
import { DEFAULT_CSV_COLUMNS, type CsvColumns } from '../parsers/csv-parser';
import { LabelsParser } from '../parsers/labels-parser';
import { createParser, formatFromPath } from '../parsers/parser-for';
import { RejectFile } from '../reject-file';
import type { BulkProgress } from './bulk-progress';
import { ImportGraph, type ImportFiles } from './import-graph';

export type { ImportFiles } from './import-graph';

export interface ImportFileOptions {
  /** Triple files, read in this order. */
  files: readonly string[];
  /** A label file (`id<TAB>Label[;Label…]`), read after the triples. */
  labels?: string;
  /** Defaults to each file's extension (tsv when unknown). */
  format?: IngestFormat;
  columns?: CsvColumns;
  /** Load the good lines and send bad ones to a reject file; default: all or nothing. */
  skipInvalid?: boolean;
  /** The reject file when there is one triple file; default `<file>.rejects.tsv` for each. */
  rejectPath?: string;
  maxLineBytes?: number;
  onProgress?: (progress: BulkProgress) => void;
  /**
   * Stops the work: between chunks while the files are written (nothing is loaded), and in
   * bulkIngest the import itself (which then fails, and the server is started again).
   */
  signal?: AbortSignal;
}

export interface ImportFileCounts {
  /** Lines read, blank and comment lines included. */
  lines: number;
  /** Valid edge lines. */
  triples: number;
  /** Distinct edges: the relationships the import creates. */
  edges: number;
  /** Edge lines repeating an earlier one (collapsed, as the transactional ingest does). */
  duplicates: number;
  entities: number;
  relations: number;
  /** Label-file and `rdf:type` lines. */
  labelled: number;
  /** N-Triples literal lines, set as properties after the import. */
  properties: number;
  /** Bad lines (only with skipInvalid; strict mode fails instead). */
  skipped: number;
  rejectFiles: string[];
}

/** Bad lines quoted in a strict-mode failure; the rest are counted (as ingest-file.ts does). */
const QUOTED_ERRORS = 3;

/**
 * Validates every line exactly as the transactional ingest does (its parsers, reasons and
 * messages) and writes neo4j-admin's input into `dir` (ImportGraph), streaming: memory holds the
 * entity ids, about 20 bytes per distinct edge and one write block per file, never the input.
 * Strict mode fails on the first file with a bad line, with the transactional ingest's message;
 * the caller then discards `dir`, so nothing is loaded.
 */
export async function writeImportFiles(
  dir: string,
  options: ImportFileOptions,
): Promise<{ files: ImportFiles; counts: ImportFileCounts }> {
  if (options.rejectPath !== undefined && options.files.length > 1) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      '--rejects names one reject file: with several triple files, leave it out (each gets <file>.rejects.tsv).',
    );
  }
  const inputs = [
    ...options.files.map((file) => ({ file, labels: false })),
    ...(options.labels !== undefined ? [{ file: options.labels, labels: true }] : []),
  ];
  const sources = await Promise.all(
    inputs.map((input) => openLineSource(input.file, options.maxLineBytes)),
  );
  const totalBytes = sources.reduce((sum, source) => sum + source.size, 0);
  // About 40 bytes a line in typical triple files: the edge set starts near its final size.
  const graph = await ImportGraph.create(dir, Math.max(1024, totalBytes / 40));
  const progress = { started: Date.now(), totalBytes, bytesBefore: 0, lines: 0 };
  let skipped = 0;
  const rejectFiles: string[] = [];
  try {
    for (const [i, input] of inputs.entries()) {
      const parser: LineParser = input.labels
        ? new LabelsParser()
        : createParser(
            options.format ?? formatFromPath(input.file),
            options.columns ?? DEFAULT_CSV_COLUMNS,
          );
      const rejects = options.skipInvalid
        ? new RejectFile(
            !input.labels && options.rejectPath !== undefined
              ? options.rejectPath
              : `${input.file}.rejects.tsv`,
          )
        : undefined;
      const source = sources[i] as LineSource;
      try {
        await readInput(input.file, source, parser, graph, rejects, progress, options);
      } finally {
        await rejects?.close();
      }
      progress.bytesBefore += source.size;
      if (rejects) {
        skipped += rejects.count;
        if (rejects.count > 0) rejectFiles.push(rejects.path);
      }
    }
  } catch (error) {
    await graph.close().catch(() => undefined); // the error that stopped the work matters
    throw error;
  }
  return {
    files: await graph.finish(),
    counts: {
      lines: progress.lines,
      triples: graph.triples,
      edges: graph.edgeCount,
      duplicates: graph.duplicates,
      entities: graph.entityCount,
      relations: graph.relationCount,
      labelled: graph.labelled,
      properties: graph.literals,
      skipped,
      rejectFiles,
    },
  };
}

/** One input file into the graph; bad lines to `rejects`, or (strict) an error after the file. */
async function readInput(
  file: string,
  source: LineSource,
  parser: LineParser,
  graph: ImportGraph,
  rejects: RejectFile | undefined,
  progress: { started: number; totalBytes: number; bytesBefore: number; lines: number },
  options: ImportFileOptions,
): Promise<void> {
  const name = path.basename(file);
  const problems: string[] = [];
  let bad = 0;
  let lineNumber = 0;
  for await (const chunk of source.chunks()) {
    for (const text of chunk) {
      lineNumber += 1;
      const parsed = parseSourceLine(parser, text);
      if (parsed.kind !== 'invalid') {
        const pending = graph.add(parsed, text as string);
        if (pending) await pending;
        continue;
      }
      if (parsed.fatal) {
        throw new KgcError(
          ErrorCode.INGEST_INVALID_INPUT,
          `${name}:${lineNumber}: ${parsed.reason}.`,
        );
      }
      bad += 1;
      if (rejects) rejects.add(lineNumber, parsed.reason, typeof text === 'string' ? text : null);
      else if (problems.length < QUOTED_ERRORS)
        problems.push(`${name}:${lineNumber}: ${parsed.reason}`);
    }
    throwIfStopped(options.signal);
    options.onProgress?.({
      phase: 'prepare',
      fraction:
        progress.totalBytes > 0
          ? (progress.bytesBefore + source.bytesRead()) / progress.totalBytes
          : 1,
      lines: progress.lines + lineNumber,
      triples: graph.triples,
      seconds: (Date.now() - progress.started) / 1000,
    });
  }
  progress.lines += lineNumber;
  if (!rejects && bad > 0) {
    const more = bad > problems.length ? ` (and ${bad - problems.length} more bad lines)` : '';
    throw new KgcError(
      ErrorCode.INGEST_INVALID_INPUT,
      `${problems.join('; ')}${more}. Nothing was written: fix the file or rerun with --skip-invalid.`,
    );
  }
}

export function throwIfStopped(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    // The code other commands stopped by a signal use (kgc suggest).
    throw new KgcError(
      ErrorCode.TRAINING_ABORTED,
      'Stopped before the import: nothing was loaded.',
    );
  }
}
