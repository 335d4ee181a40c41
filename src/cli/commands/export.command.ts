import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import { exportToFiles } from '../../export';
import type { CliOutput } from '../cli-output';
import { openMigratedDatabase } from '../migrated-database';
import { exportProgress } from '../progress/export-progress';
import { integerOption } from './command-args';

interface ExportCliOptions {
  out: string;
  relation?: string[];
  predictions: boolean;
  split: boolean;
  seed: number;
  valid: number;
  test: number;
  json?: boolean;
}

function fraction(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n >= 1)
    throw new InvalidArgumentError('expected a fraction in [0, 1).');
  return n;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function exportCommand(out: CliOutput): Command {
  return new Command('export')
    .description(
      'Export every (:Entity)-[r]->(:Entity) edge to TSV: train/valid/test.txt, or triples.txt',
    )
    .requiredOption('--out <dir>', 'output folder (created if missing)')
    .option('--relation <name>', 'only this relation type (repeat for several)', collect)
    .option(
      '--no-predictions',
      "leave out accepted predictions (edges with kgc_source = 'prediction')",
    )
    .option('--no-split', 'write one triples.txt instead of train/valid/test.txt')
    .option('--seed <n>', 'split seed', integerOption('--seed'), 42)
    .option('--valid <fraction>', 'validation fraction', fraction, 0.05)
    .option('--test <fraction>', 'test fraction', fraction, 0.05)
    .option('--json', 'print the summary as JSON')
    .action(async (options: ExportCliOptions) => {
      if (options.valid + options.test >= 1) {
        throw new KgcError(ErrorCode.BAD_USER_INPUT, '--valid plus --test must be below 1.');
      }
      const db = await openMigratedDatabase(loadConfig(), (line) =>
        process.stderr.write(`${line}\n`),
      );
      // Progress goes to stderr so stdout holds only the summary (`--json` stays parseable).
      const progress = exportProgress();
      try {
        const summary = await exportToFiles(db, {
          out: options.out,
          filter: { relations: options.relation, includePredictions: options.predictions },
          split: options.split
            ? { seed: options.seed, validFraction: options.valid, testFraction: options.test }
            : undefined,
          onProgress: (p) => progress.report(p),
        });
        progress.stop();
        if (options.json) out.info(JSON.stringify(summary));
        else {
          out.info(
            `Exported ${summary.triples} triples (${summary.entities} entities, ${summary.relations} relations) ` +
              `in ${summary.seconds.toFixed(1)} s to ${summary.out}:`,
          );
          for (const [name, count] of Object.entries(summary.files))
            out.info(`  ${name}: ${count}`);
        }
      } finally {
        progress.stop();
        await db.close();
      }
    });
}
