import path from 'node:path';
import { Command } from 'commander';
import { loadConfig, TrainDevice } from '../../config';
import { ErrorCode, KgcError } from '../../errors';
import {
  combineDatasetModel,
  describePlan,
  graphSize,
  KEPT_DESCRIPTION,
  longerBudgetAdvice,
  planTimeBudget,
  budgetTrainOptions,
  resolveTrainingConfig,
  Scorer,
  train,
  type TrainingLoss,
  TrainingOverrides,
  tune,
} from '../../model';
import type { CliOutput } from '../cli-output';
import { trainingProgress } from '../progress/training-progress';
import {
  deviceOption,
  durationOption,
  fractionOption,
  integerOption,
  lossOption,
  metricsLine,
} from './command-args';
import { calibrateTrainedModel } from './calibration-report';
import { trainFromGraphCommand } from './train-graph';

interface TrainCliOptions {
  dataset?: string;
  force?: boolean;
  relation?: string[];
  preset: string;
  epochs?: number;
  evalEvery?: number;
  patience?: number;
  threads?: number;
  seed?: number;
  weightAverage?: number;
  sampledCandidates?: number;
  loss?: TrainingLoss;
  out?: string;
  resume?: string;
  json?: boolean;
  timeBudget?: number;
  tune?: number;
  device?: TrainDevice;
  /** false with --no-tuned-settings. */
  tunedSettings?: boolean;
  fromScratch?: boolean;
}

export function trainCommand(out: CliOutput): Command {
  return new Command('train')
    .description(
      'Train NePTuNe: without --dataset, the retraining job against Neo4j (export, stable split, ' +
        'train, evaluate, new model version, promotion gate); with --dataset, on files (no Neo4j)',
    )
    .option(
      '--dataset <dir>',
      'folder holding train.txt, valid.txt and test.txt (head<TAB>relation<TAB>tail)',
    )
    .option('--force', 'graph job: promote the new version even if the gate finds it worse')
    .option(
      '--relation <type>',
      'graph job: train on this relation type only (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--preset <name>', 'fb15k-237, wn18rr (the reference settings) or default', 'default')
    .option(
      '--epochs <n>',
      "override the preset's number of epochs",
      integerOption('--epochs', { min: 1 }),
    )
    .option(
      '--eval-every <n>',
      'validate every n epochs (0 = never)',
      integerOption('--eval-every', { min: 0 }),
    )
    .option(
      '--patience <n>',
      'stop after n validations without a better validation MRR (0 = never; the default ' +
        'preset: a tenth of its planned validations, at least 5; the reference presets: never)',
      integerOption('--patience', { min: 0 }),
    )
    .option(
      '--threads <n>',
      'worker threads (0 = all cores)',
      integerOption('--threads', { min: 0 }),
    )
    .option('--seed <n>', 'random seed', integerOption('--seed', { min: 0 }))
    .option(
      '--weight-average <rate>',
      'keep a moving average of the weights (moved this share of the way after each epoch, ' +
        'e.g. 0.2) and validate and keep it: runs end sooner at about the same quality (off ' +
        'by default: docs/training.md)',
      fractionOption('--weight-average'),
    )
    .option(
      '--sampled-candidates <n>',
      'score each batch against its own tails and a shared sample of n other entities instead ' +
        'of every entity (0 = every entity; default: the preset sized to the graph, which ' +
        'samples only where scoring every entity would not fit its budget: docs/training.md)',
      integerOption('--sampled-candidates', { min: 0 }),
    )
    .option(
      '--loss <loss>',
      "the training loss: bce (the paper's binary cross-entropy per entity) or softmax (a " +
        "cross-entropy over all entities); default: the preset's, bce (docs/training.md)",
      lossOption('--loss'),
    )
    .option(
      '--time-budget <duration>',
      'train as well as possible within this time on this machine (45m, 1.5h, 90s): the ' +
        'epochs, learning-rate schedule and dropout follow from a measured epoch',
      durationOption('--time-budget'),
    )
    .option(
      '--tune <duration>',
      'search the sensitive settings within this time (successive halving, chosen by validation ' +
        'MRR), then train the winner in what is left; writes tuning.json beside the model, and ' +
        'against the graph stores the winning settings for later retraining',
      durationOption('--tune'),
    )
    .option(
      '--device <device>',
      'where the training steps run: auto (a GPU when present), cpu, or gpu (any GPU adapter, ' +
        'a software one included); default KGC_TRAIN_DEVICE, else auto',
      deviceOption('--device'),
    )
    .option(
      '--no-tuned-settings',
      'against the graph: ignore the settings an earlier --tune stored (the sized preset instead)',
    )
    .option(
      '--from-scratch',
      'against the graph: train from a fresh init (default: warm start from the active ' +
        "version's weights, with epochs sized to how much the graph changed)",
    )
    .option('--out <dir>', '--dataset: where to save the model (default .kgc/models/train-<time>)')
    .option('--resume <dir>', 'resume from the checkpoints of an earlier --out folder')
    .option('--json', 'print a JSON summary as the last line')
    .action(async (options: TrainCliOptions) => {
      const config = loadConfig();
      const device = options.device ?? config.lifecycle.trainDevice;
      const overrides: TrainingOverrides = {
        epochs: options.epochs,
        evalEvery: options.evalEvery,
        patience: options.patience,
        threads: options.threads,
        seed: options.seed,
        weightAverage: options.weightAverage,
        sampledCandidates: options.sampledCandidates,
        loss: options.loss,
      };
      if (options.tune !== undefined && options.timeBudget !== undefined) {
        throw new KgcError(
          ErrorCode.BAD_USER_INPUT,
          '--tune sets its own time budget: drop --time-budget.',
        );
      }
      if (options.dataset === undefined) {
        if (options.out !== undefined || options.resume !== undefined) {
          throw new KgcError(
            ErrorCode.BAD_USER_INPUT,
            '--out and --resume need --dataset: the graph job writes versions to the model store.',
          );
        }
        await trainFromGraphCommand(out, {
          preset: options.preset,
          overrides,
          force: options.force === true,
          relations: options.relation,
          json: options.json === true,
          timeBudgetSeconds: options.timeBudget,
          tuneSeconds: options.tune,
          device,
          useTunedSettings: options.tunedSettings !== false,
          fromScratch: options.fromScratch === true,
        });
        return;
      }
      if (options.fromScratch) {
        throw new KgcError(
          ErrorCode.BAD_USER_INPUT,
          '--from-scratch applies to the graph job: training on --dataset files always starts ' +
            'from a fresh init (or --resume).',
        );
      }
      const dataset = { dir: path.resolve(options.dataset) };
      const size = await graphSize(dataset);
      if (options.tune !== undefined) {
        if (options.resume !== undefined) {
          throw new KgcError(ErrorCode.BAD_USER_INPUT, '--tune cannot resume: drop --resume.');
        }
        const tuned = await tune(dataset, options.preset, overrides, size, options.tune, {
          outDir: path.resolve(options.out ?? defaultOutDir(config.stateDir)),
          seed: options.seed,
          device,
          onTrial: (line) => out.info(line),
        });
        out.info(
          `Tuned ${tuned.trials.length} trials (${tuned.plan.rungEpochs.join('/')} epochs per rung)` +
            (tuned.final
              ? `, then continued the winner to ${tuned.final.epochsRun} epochs (${tuned.final.stop})`
              : ', no time left to continue the winner') +
            `; kept the ${KEPT_DESCRIPTION[tuned.kept]}, ` +
            `validation MRR ${tuned.validMrr.toFixed(4)}. Settings: ${JSON.stringify(tuned.settings)}; ` +
            `trials in ${tuned.reportFile}; model in ${tuned.modelDir}`,
        );
        await combineAndCalibrate(out, tuned.modelDir, dataset.dir);
        return;
      }
      const plan =
        options.timeBudget !== undefined
          ? await planTimeBudget(
              dataset,
              options.preset,
              overrides,
              size,
              options.timeBudget,
              device,
            )
          : undefined;
      if (plan) out.info(describePlan(plan, options.timeBudget as number));
      const engineConfig = plan?.config ?? resolveTrainingConfig(options.preset, overrides, size);
      const outDir = path.resolve(options.out ?? defaultOutDir(config.stateDir));
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const progress = trainingProgress(Number(engineConfig.epochs));
      const validations: { epoch: number; mrr: number }[] = [];
      try {
        const summary = await train(dataset, engineConfig, {
          outDir,
          resumeFrom: options.resume ? path.resolve(options.resume, 'checkpoints') : undefined,
          ...budgetTrainOptions(plan),
          device,
          onProgress: (event) => {
            if (event.kind === 'validation' && event.metrics)
              validations.push({ epoch: event.epoch, mrr: event.metrics.overall.mrr });
            progress.report(event);
          },
          signal: controller.signal,
        });
        progress.stop();
        const valid = summary.valid?.overall;
        out.info(
          `Trained ${summary.epochsRun} epochs (${summary.stop}) in ${summary.seconds.toFixed(1)} s, ` +
            `${summary.epochSeconds.toFixed(2)} s/epoch on ${summary.device}; kept epoch ${summary.modelEpoch}` +
            `${valid ? `, validation ${metricsLine(valid)}` : ''}; model in ${summary.modelDir}`,
        );
        out.info(`Longer budget: ${longerBudgetAdvice(validations)}.`);
        const calibration = await combineAndCalibrate(out, summary.modelDir, dataset.dir);
        if (options.json) {
          out.info(
            JSON.stringify({
              ...(valid ?? { mrr: null, mr: null, hits1: null, hits3: null, hits10: null }),
              epochs: summary.epochsRun,
              modelEpoch: summary.modelEpoch,
              stop: summary.stop,
              seconds: summary.seconds,
              epochSeconds: summary.epochSeconds,
              device: summary.device,
              modelDir: summary.modelDir,
              calibration,
            }),
          );
        }
      } catch (error) {
        if (error instanceof KgcError && error.code === ErrorCode.TRAINING_ABORTED) {
          throw new KgcError(
            ErrorCode.TRAINING_ABORTED,
            `Training stopped; resume with --resume ${outDir}.`,
          );
        }
        throw error;
      } finally {
        progress.stop();
        process.removeListener('SIGINT', stop);
        process.removeListener('SIGTERM', stop);
      }
    });
}

/** The trained model's rules, combiner and calibration, asking one loaded copy of the model. */
async function combineAndCalibrate(
  out: CliOutput,
  modelDir: string,
  datasetDir: string,
): ReturnType<typeof calibrateTrainedModel> {
  const scorer = await Scorer.loadAsync(modelDir);
  for (const line of await combineDatasetModel(modelDir, datasetDir, scorer)) out.info(line);
  return calibrateTrainedModel(out, modelDir, datasetDir, scorer);
}

function defaultOutDir(stateDir: string): string {
  return path.join(stateDir, 'models', `train-${new Date().toISOString().replace(/[:.]/g, '-')}`);
}
