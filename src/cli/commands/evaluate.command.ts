import path from 'node:path';
import { Command } from 'commander';
import { ErrorCode, KgcError } from '../../errors';
import {
  classifyTriples,
  evaluate,
  evaluateServed,
  evaluateTyped,
  readDatasetArrays,
  type Metrics,
} from '../../model';
import type { CliOutput } from '../cli-output';
import { integerOption, metricsLine } from './command-args';
import { readLabelFile } from './label-file';

interface EvaluateCliOptions {
  model: string;
  dataset: string;
  split: string;
  threads: number;
  perRelation?: boolean;
  typed?: boolean;
  labels?: string;
  json?: boolean;
  classify?: boolean;
  rules: boolean;
}

export function evaluateCommand(out: CliOutput): Command {
  return new Command('evaluate')
    .description(
      'Filtered ranking metrics (MRR, MR, Hits@1/3/10) of a saved model on a dataset split',
    )
    .requiredOption('--model <dir>', 'a model folder written by `kgc train`')
    .requiredOption('--dataset <dir>', 'folder holding train.txt, valid.txt and test.txt')
    .option('--split <split>', 'valid or test', 'test')
    .option(
      '--threads <n>',
      'worker threads (0 = all cores)',
      integerOption('--threads', { min: 0 }),
      0,
    )
    .option('--per-relation', 'also print metrics per relation and direction')
    .option(
      '--typed',
      "rank only candidates in each relation's range (tail queries) / domain (head queries), learned from train.txt (by the model alone)",
    )
    .option(
      '--labels <file>',
      'with --typed: entity labels (id<TAB>Label[;Label…]) to learn types from',
    )
    .option(
      '--no-rules',
      "rank by the model alone (default: as the folder serves, the model's logit plus its rules' evidence where it has a combiner)",
    )
    .option('--json', 'print the metrics as JSON on the last line')
    .option(
      '--classify',
      'triple classification instead of ranking: accuracy, precision, recall, F1 and ECE of ' +
        '"probability >= 0.5" over test.txt (true) and test_negatives.txt (false)',
    )
    .action(async (options: EvaluateCliOptions) => {
      if (options.classify) {
        const report = await classifyTriples(
          path.resolve(options.model),
          path.resolve(options.dataset),
        );
        const pct = (x: number) => (100 * x).toFixed(2);
        out.info(
          `classification (probability >= 0.5${report.calibrated ? ', calibrated' : ', uncalibrated sigmoid: the model folder has no calibration.json'}` +
            `${report.scoredBy === 'edge' ? ', from both questions as edgeProbabilities' : ', from the tail question'}): ` +
            `accuracy ${pct(report.accuracy)}%, precision ${pct(report.precision)}%, recall ` +
            `${pct(report.recall)}%, F1 ${pct(report.f1)}%, ECE ${report.ece.toFixed(4)} ` +
            `(${report.positives} true, ${report.negatives} false triples)`,
        );
        const { positives, negatives } = report.unknown;
        if (positives + negatives > 0) {
          out.info(
            `${positives} true and ${negatives} false triple(s) name an entity or relation the model ` +
              'does not know: classified false.',
          );
        }
        if (options.json) out.info(JSON.stringify(report));
        return;
      }
      if (options.split !== 'valid' && options.split !== 'test') {
        throw new KgcError(
          ErrorCode.BAD_USER_INPUT,
          `--split must be valid or test, got "${options.split}".`,
        );
      }
      const started = Date.now();
      if (options.labels && !options.typed) {
        throw new KgcError(ErrorCode.BAD_USER_INPUT, '--labels needs --typed.');
      }
      let typedNote = '';
      let withRules = false;
      let metrics: Metrics;
      if (options.typed) {
        const typed = await evaluateTyped(
          path.resolve(options.model),
          readDatasetArrays(path.resolve(options.dataset)),
          options.split,
          {
            threads: options.threads,
            labels: options.labels ? readLabelFile(options.labels) : undefined,
          },
        );
        metrics = typed.metrics;
        typedNote =
          `, typed: ${(typed.answersInRange * 100).toFixed(1)}% of true answers in their range, ` +
          `ranges hold ${(typed.meanRangeShare * 100).toFixed(1)}% of the entities on average`;
      } else {
        const served = options.rules
          ? await evaluateServed(
              path.resolve(options.model),
              path.resolve(options.dataset),
              options.split,
            )
          : undefined;
        withRules = served !== undefined;
        metrics =
          served ??
          (await evaluate(
            path.resolve(options.model),
            { dir: path.resolve(options.dataset) },
            options.split,
            options.threads,
          ));
      }
      const seconds = (Date.now() - started) / 1000;
      out.info(
        `${options.split}: ${metricsLine(metrics.overall)} (${metrics.overall.count} queries, ${seconds.toFixed(2)} s${typedNote}` +
          `${withRules ? ", ranked as served: the model's logit plus its rules' evidence (--no-rules: the model alone)" : ''})`,
      );
      if (options.perRelation) {
        for (const r of metrics.perRelation)
          out.info(`  ${r.relation} [${r.direction}] ${metricsLine(r.metrics)}`);
      }
      if (options.json)
        out.info(
          JSON.stringify({
            ...metrics.overall,
            split: options.split,
            typed: options.typed === true,
            rules: withRules,
            seconds,
            perRelation: metrics.perRelation,
          }),
        );
    });
}
