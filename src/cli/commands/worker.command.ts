import path from 'node:path';
import { Command } from 'commander';
import { RetrainWorker } from '../../jobs';
import { openModelStore } from '../../model';
import { describeModelStore } from '../../config';
import type { TrainDevice } from '../../config';
import { deviceOption, durationOption, integerOption } from './command-args';
import { withLifecycleDatabase } from './lifecycle-context';
import { checkModelStore } from './model-store-check';
import { createLogger } from '../../server/logger';

interface WorkerCliOptions {
  preset: string;
  epochs?: number;
  evalEvery?: number;
  threads?: number;
  seed?: number;
  relation?: string[];
  trainIfEmpty?: boolean;
  timeBudget?: number;
  device?: TrainDevice;
}

/** `kgc worker`: scheduled and requested retraining until SIGTERM or Ctrl-C. */
export function workerCommand(): Command {
  return new Command('worker')
    .description(
      'Retrain on KGC_RETRAIN_CRON and on requests (`kgc retrain --request`), one job at a time, ' +
        'each in a child process; SIGTERM stops the job (its run ends interrupted) and exits',
    )
    .option('--preset <name>', 'training preset of every job', 'default')
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
      '--threads <n>',
      'worker threads of each job (0 = all cores)',
      integerOption('--threads', { min: 0 }),
    )
    .option('--seed <n>', 'random seed', integerOption('--seed', { min: 0 }))
    .option(
      '--relation <type>',
      'train on this relation type only (repeatable; default KGC_RETRAIN_RELATIONS or all)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--time-budget <duration>',
      "each job's training time (45m, 1.5h, 90s; default KGC_RETRAIN_TIME_BUDGET, else the preset's)",
      durationOption('--time-budget'),
    )
    .option(
      '--device <device>',
      "where each job's training steps run: auto (a GPU when present), cpu or gpu (default KGC_TRAIN_DEVICE, else auto)",
      deviceOption('--device'),
    )
    .option('--train-if-empty', 'train at once when no version is active yet')
    .action(async (options: WorkerCliOptions) => {
      await withLifecycleDatabase(async (db, config) => {
        const { lifecycle } = config;
        // JSON lines on stdout, as `kgc serve` writes: the worker is a service too.
        const logger = createLogger(config.logLevel);
        const log = (line: string) => logger.info(`worker: ${line}`);
        await checkModelStore(openModelStore(lifecycle), (error) => log(error.message));
        const worker = new RetrainWorker(db, {
          cron: lifecycle.retrainCron,
          fullCron: lifecycle.fullRetrainCron,
          pollSeconds: lifecycle.requestPollSeconds,
          minChangedEdges: lifecycle.retrainMinNewEdges,
          minNewEntities: lifecycle.retrainMinNewEntities,
          scope: lifecycle.registryScope,
          log,
          childOutput: (line, run) => logger.info(run ? { run } : {}, line),
          trainIfEmpty: options.trainIfEmpty === true,
          // The compiled job-child.js of this CLI: each job runs in a child process.
          jobScript: path.join(__dirname, '..', 'job-child.js'),
          job: {
            preset: options.preset,
            relations: options.relation,
            timeBudgetSeconds: options.timeBudget ?? lifecycle.retrainTimeBudgetSeconds,
            device: options.device ?? lifecycle.trainDevice,
            overrides: {
              epochs: options.epochs,
              evalEvery: options.evalEvery,
              threads: options.threads,
              seed: options.seed,
            },
          },
        });
        const stopped = new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        worker.start();
        const next = worker.nextRun();
        log(
          `started: ${lifecycle.retrainCron ? `schedule "${lifecycle.retrainCron}" (next ${next?.toISOString()})` : 'no schedule (KGC_RETRAIN_CRON unset)'}, ` +
            `${lifecycle.fullRetrainCron ? `full retrains "${lifecycle.fullRetrainCron}" (next ${worker.nextFullRun()?.toISOString()}), ` : ''}` +
            `requests polled every ${lifecycle.requestPollSeconds} s, ` +
            `store ${describeModelStore(lifecycle.modelStore, lifecycle.remoteModelStore)}`,
        );
        await stopped;
        log('stopping');
        await worker.stop();
        log('stopped');
      });
    });
}
