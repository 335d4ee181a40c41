import { Command } from 'commander';
import { ErrorCode, KgcError } from '../../errors';
import { suggestVersion } from '../../jobs/suggest-version';
import type { CliOutput } from '../cli-output';
import { suggestProgress } from '../progress/suggest-progress';
import { activeVersionDir } from './active-suggestions';
import { integerOption } from './command-args';
import { withLifecycleDatabase } from './lifecycle-context';

interface SuggestCliOptions {
  relation?: string[];
  top?: number;
  json?: boolean;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function suggestCommand(out: CliOutput): Command {
  return new Command('suggest')
    .description(
      "The active version's best missing edges across the graph, per relation and direction " +
        '(known and rejected edges left out), stored with the version: the review queue',
    )
    .option(
      '--relation <name>',
      'only this relation (repeat for several; the others are kept)',
      collect,
    )
    .option(
      '--top <n>',
      'suggestions per relation and direction (default KGC_SUGGESTIONS_PER_RELATION)',
      integerOption('--top', { min: 1, max: 100000 }),
    )
    .option('--json', 'print the summary as JSON')
    .action(async (options: SuggestCliOptions) => {
      await withLifecycleDatabase(async (db, config) => {
        const { version, dir, store } = await activeVersionDir(db, config);
        const controller = new AbortController();
        const stop = () => controller.abort();
        process.once('SIGINT', stop);
        const progress = suggestProgress();
        const started = Date.now();
        try {
          const summary = await suggestVersion(db, dir, version, {
            relations: options.relation,
            perRelation: options.top ?? config.lifecycle.suggestionsPerRelation,
            signal: controller.signal,
            onProgress: (done, total, relation) =>
              progress.report({ done, total, relation, seconds: (Date.now() - started) / 1000 }),
          });
          progress.stop();
          // Other machines' review queues serve the file too (a remote model store).
          await store.shareAdded(version);
          if (options.json) out.info(JSON.stringify(summary));
          else {
            out.info(
              `${summary.suggestions} suggestions across ${summary.relations} relation(s) of ${version} ` +
                `in ${summary.seconds.toFixed(1)} s: ${summary.file}`,
            );
          }
        } catch (error) {
          if (controller.signal.aborted) {
            throw new KgcError(
              ErrorCode.TRAINING_ABORTED,
              'Stopped: the suggestions file was not changed.',
              { cause: error },
            );
          }
          throw error;
        } finally {
          progress.stop();
          process.off('SIGINT', stop);
        }
      });
    });
}
