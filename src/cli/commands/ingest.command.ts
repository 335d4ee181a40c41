import { Command } from 'commander';
import { loadConfig } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import {
  DEFAULT_BATCH_SIZE,
  DEFAULT_CSV_COLUMNS,
  ingestFile,
  parseFormat,
  type IngestFormat,
  type IngestSummary,
} from '../../ingest';
import type { CliOutput } from '../cli-output';
import { openMigratedDatabase } from '../migrated-database';
import { ingestProgress } from '../progress/ingest-progress';
import { runBulkIngest } from './bulk-ingest';
import { integerOption } from './command-args';

interface IngestCliOptions {
  format?: IngestFormat;
  labels?: string;
  skipInvalid?: boolean;
  rejects?: string;
  batchSize: number;
  headColumn: string;
  relationColumn: string;
  tailColumn: string;
  bulk?: boolean;
  bulkCsvOnly?: string;
  json?: boolean;
}

export function ingestCommand(out: CliOutput): Command {
  return new Command('ingest')
    .description(
      'Load triples (TSV, CSV with a header, N-Triples; gzip accepted) into Neo4j, idempotently',
    )
    .argument('[paths...]', 'the triple files (loaded in turn)')
    .option(
      '--labels <file>',
      'a label file (id<TAB>Label[;Label…]): adds Neo4j labels to entities (after the triples, when both are given)',
    )
    .option(
      '--format <format>',
      'tsv | csv | nt (default: from the extension, else tsv)',
      parseFormat,
    )
    .option(
      '--skip-invalid',
      'write the good lines; write bad ones with reasons to the reject file',
    )
    .option('--rejects <file>', 'reject file for --skip-invalid (default: <path>.rejects.tsv)')
    .option(
      '--batch-size <n>',
      'the most triples per transaction (batches are sized below it by their measured time)',
      integerOption('--batch-size', { min: 1 }),
      DEFAULT_BATCH_SIZE,
    )
    .option('--head-column <name>', 'CSV: the head column', DEFAULT_CSV_COLUMNS.head)
    .option('--relation-column <name>', 'CSV: the relation column', DEFAULT_CSV_COLUMNS.relation)
    .option('--tail-column <name>', 'CSV: the tail column', DEFAULT_CSV_COLUMNS.tail)
    .option(
      '--bulk',
      'first load of a big graph into the EMPTY local database through neo4j-admin import ' +
        '(stops and restarts the local Neo4j); later changes go without --bulk',
    )
    .option(
      '--bulk-csv-only <dir>',
      "write neo4j-admin's import files into <dir> and print how to import them on a server " +
        'kgc does not manage; nothing is loaded',
    )
    .option('--json', 'print the summary as JSON')
    .action(async (files: string[], options: IngestCliOptions) => {
      if (files.length === 0 && options.labels === undefined) {
        throw new KgcError(
          ErrorCode.BAD_USER_INPUT,
          'Give a triple file, --labels <file>, or both.',
        );
      }
      if (options.rejects !== undefined && files.length > 1) {
        throw new KgcError(
          ErrorCode.BAD_USER_INPUT,
          '--rejects names one reject file: with several triple files, leave it out (each gets <file>.rejects.tsv).',
        );
      }
      const columns = {
        head: options.headColumn,
        relation: options.relationColumn,
        tail: options.tailColumn,
      };
      if (options.bulk || options.bulkCsvOnly !== undefined) {
        await runBulkIngest(
          loadConfig(),
          {
            files,
            labels: options.labels,
            format: options.format,
            columns,
            skipInvalid: options.skipInvalid,
            rejects: options.rejects,
            csvOnly: options.bulkCsvOnly,
            json: options.json,
          },
          out,
        );
        return;
      }
      const db = await openMigratedDatabase(loadConfig(), (line) =>
        process.stderr.write(`${line}\n`),
      );
      // Progress goes to stderr so stdout holds only the summary (`--json` stays parseable).
      const progress = ingestProgress();
      try {
        const runs = [
          ...files.map((file) => ({ file, labels: false })),
          ...(options.labels !== undefined ? [{ file: options.labels, labels: true }] : []),
        ];
        for (const run of runs) {
          const summary = await ingestFile(db, {
            file: run.file,
            labels: run.labels,
            format: options.format,
            columns,
            skipInvalid: options.skipInvalid,
            rejectPath: run.labels ? undefined : options.rejects,
            batchSize: options.batchSize,
            onProgress: (p) => progress.report(p),
            // Said as it happens: a split batch is a server that is slow right now.
            onSplit: (split) =>
              process.stderr.write(
                `ingest: a batch of ${split.rows} triples ran past its ${Math.round(split.limitMs / 1000)} s ` +
                  'limit and was rolled back; writing it again in two halves\n',
              ),
          });
          progress.stop();
          out.info(options.json ? JSON.stringify(summary) : describe(summary));
        }
      } finally {
        progress.stop();
        await db.close();
      }
    });
}

function describe(s: IngestSummary): string {
  const rate = s.seconds > 0 ? Math.round(s.triples / s.seconds) : s.triples;
  const lines = [
    `Ingested ${s.file} (${s.format}) in ${s.seconds.toFixed(1)} s (${rate.toLocaleString('en')} triples/s):`,
    `  read ${s.lines} lines, ${s.triples} triples`,
    `  written ${s.written}, already present ${s.alreadyPresent}, skipped ${s.skipped}`,
  ];
  if (s.failed > 0)
    lines.push(
      `  NOT written ${s.failed}: an endpoint entity was deleted while the ingest ran; run it again`,
    );
  if (s.confirmed > 0)
    lines.push(`  accepted predictions now facts ${s.confirmed} (a revert refuses them)`);
  if (s.properties > 0) lines.push(`  entity properties set ${s.properties}`);
  if (s.labelled > 0) lines.push(`  entities labelled ${s.labelled}`);
  if (s.rejectFile) lines.push(`  bad lines and reasons: ${s.rejectFile}`);
  if (s.splits > 0) lines.push(`  batches split after running past their time limit ${s.splits}`);
  return lines.join('\n');
}
