import type { Config } from '../../config';
import { localNeo4jFromConfig } from '../../graph';
import {
  bulkIngest,
  importInstructions,
  remoteBulkRefused,
  writeImportFilesInto,
  type BulkIngestSummary,
  type ImportFileCounts,
} from '../../ingest/bulk';
import type { IngestFormat } from '../../ingest';
import type { CsvColumns } from '../../ingest/parsers/csv-parser';
import type { CliOutput } from '../cli-output';
import { MIGRATIONS_DIR } from '../migrated-database';
import { bulkIngestProgress } from '../progress/bulk-ingest-progress';

export interface BulkCliOptions {
  files: string[];
  labels?: string;
  format?: IngestFormat;
  columns: CsvColumns;
  skipInvalid?: boolean;
  rejects?: string;
  /** `--bulk-csv-only <dir>`: write the import files there, load nothing. */
  csvOnly?: string;
  json?: boolean;
}

/**
 * `kgc ingest --bulk`: a first load through neo4j-admin into the empty local database, or with
 * `--bulk-csv-only` the import files for a server kgc does not manage.
 */
export async function runBulkIngest(
  config: Config,
  options: BulkCliOptions,
  out: CliOutput,
): Promise<void> {
  const input = {
    files: options.files,
    labels: options.labels,
    format: options.format,
    columns: options.columns,
    skipInvalid: options.skipInvalid,
    rejectPath: options.rejects,
  };
  const progress = bulkIngestProgress();
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    if (options.csvOnly !== undefined) {
      const { files, counts } = await writeImportFilesInto(options.csvOnly, {
        ...input,
        onProgress: (p) => progress.report(p),
        signal: controller.signal,
      });
      progress.stop();
      if (options.json) out.info(JSON.stringify({ ...counts, files }));
      else {
        out.info(`Wrote the import files into ${options.csvOnly}:\n${describeCounts(counts)}`);
        out.info(importInstructions(config.neo4j.database, files));
      }
      return;
    }
    if (config.neo4j.kind === 'external') throw remoteBulkRefused(config.neo4j.database);
    const server = localNeo4jFromConfig(config, (line) => process.stderr.write(`${line}\n`));
    const summary = await bulkIngest(server, {
      ...input,
      migrationsDir: MIGRATIONS_DIR,
      client: config.client,
      onProgress: (p) => progress.report(p),
      signal: controller.signal,
    });
    progress.stop();
    out.info(options.json ? JSON.stringify(summary) : describeBulk(summary));
  } finally {
    progress.stop();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

function describeBulk(s: BulkIngestSummary): string {
  const rate = s.seconds > 0 ? Math.round(s.triples / s.seconds) : s.triples;
  const inputs = [...s.files, ...(s.labels !== undefined ? [`labels ${s.labels}`] : [])];
  const steps = Object.entries(s.phases)
    .filter(([, seconds]) => seconds > 0)
    .map(([phase, seconds]) => `${phase} ${seconds.toFixed(1)} s`);
  return [
    `Bulk-loaded ${inputs.join(', ')} in ${s.seconds.toFixed(1)} s (${rate.toLocaleString('en')} triples/s):`,
    describeCounts(s),
    `  steps: ${steps.join(', ')}`,
    ...(s.recovered !== undefined ? [`  (${s.recovered})`] : []),
  ].join('\n');
}

function describeCounts(s: ImportFileCounts): string {
  const n = (value: number) => value.toLocaleString('en');
  const lines = [
    `  read ${n(s.lines)} lines, ${n(s.triples)} triples`,
    `  relationships ${n(s.edges)} (repeated lines collapsed ${n(s.duplicates)}), ` +
      `entities ${n(s.entities)}, relations ${n(s.relations)}, skipped ${n(s.skipped)}`,
  ];
  if (s.labelled > 0) lines.push(`  label lines ${n(s.labelled)}`);
  if (s.properties > 0) lines.push(`  entity properties ${n(s.properties)}`);
  for (const file of s.rejectFiles) lines.push(`  bad lines and reasons: ${file}`);
  return lines.join('\n');
}
