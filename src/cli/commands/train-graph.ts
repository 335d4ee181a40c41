import { longerBudgetAdvice } from '../../model';
import type { TrainDevice } from '../../config';
import type { TrainingOverrides } from '../../model';
import { runRetrainJob } from '../../jobs/retrain-job';
import type { RetrainResult } from '../../jobs/retrain-job';
import type { CliOutput } from '../cli-output';
import { trainingProgress } from '../progress/training-progress';
import { withLifecycleDatabase } from './lifecycle-context';

export interface GraphTrainOptions {
  preset: string;
  overrides: TrainingOverrides;
  force: boolean;
  relations?: string[];
  json: boolean;
  timeBudgetSeconds?: number;
  tuneSeconds?: number;
  device?: TrainDevice;
  useTunedSettings: boolean;
  /** Fresh init instead of the default warm start from the active version. */
  fromScratch?: boolean;
}

function mrr(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(4);
}

/** One line a person reads: what was trained and what the gate decided. */
export function resultLine(result: RetrainResult): string {
  if (result.status === 'skipped') {
    return `Skipped: only ${result.changedEdges} edge(s) changed since ${result.previousActive}.`;
  }
  const timings = Object.entries(result.timings)
    .map(([phase, s]) => `${phase} ${s.toFixed(1)}s`)
    .join(', ');
  const gate = result.gate
    ? ` Gate on ${result.gate.compared} held-out edges (${result.gate.leftOutUnknown + result.gate.leftOutTrained + result.gate.leftOutSampled} left out): ` +
      `candidate MRR ${mrr(result.candidateMrr)}, active ${result.gate.activeVersion} ${mrr(result.activeMrr)} as served ` +
      `(models alone ${mrr(result.gate.candidateModelMrr)}, ${mrr(result.gate.activeModelMrr)}).`
    : '';
  const verdict = result.promoted
    ? `promoted (now active${result.previousActive ? `, was ${result.previousActive}` : ''})`
    : `rejected (${result.previousActive} stays active${result.reason ? `: ${result.reason}` : ''})`;
  return (
    `Version ${result.version} ${verdict}; test MRR ${mrr(result.metrics?.overall.mrr ?? null)}.` +
    `${gate} Phases: ${timings}. Run ${result.runId}; files in ${result.dir}.`
  );
}

/** `kgc train` without --dataset: the retraining job once, against Neo4j. */
export async function trainFromGraphCommand(out: CliOutput, options: GraphTrainOptions) {
  await withLifecycleDatabase(async (db, config) => {
    const relations = options.relations ?? config.lifecycle.retrainRelations;
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    // Made once the job knows its number of epochs.
    let progress: ReturnType<typeof trainingProgress> | undefined;
    const validations: { epoch: number; mrr: number }[] = [];
    try {
      const result = await runRetrainJob(db, config, {
        trigger: 'manual',
        preset: options.preset,
        overrides: options.overrides,
        timeBudgetSeconds: options.timeBudgetSeconds,
        device: options.device,
        tuneSeconds: options.tuneSeconds,
        useTunedSettings: options.useTunedSettings,
        force: options.force,
        fromScratch: options.fromScratch,
        filter: relations ? { relations } : undefined,
        signal: controller.signal,
        log: (line) => process.stderr.write(`${line}\n`),
        onPhase: (phase) => process.stderr.write(`phase=${phase}\n`),
        onTrainingConfig: (engine) => (progress = trainingProgress(Number(engine.epochs))),
        onProgress: (event) => {
          if (event.kind === 'validation' && event.metrics)
            validations.push({ epoch: event.epoch, mrr: event.metrics.overall.mrr });
          progress?.report(event);
        },
      });
      progress?.stop();
      out.info(resultLine(result));
      if (result.status !== 'skipped')
        out.info(`Longer budget: ${longerBudgetAdvice(validations)}.`);
      if (options.json) {
        out.info(
          JSON.stringify({
            runId: result.runId,
            status: result.status,
            version: result.version,
            promoted: result.promoted,
            candidateMrr: result.candidateMrr,
            activeMrr: result.activeMrr,
            previousActive: result.previousActive,
            reason: result.reason,
            mrr: result.metrics?.overall.mrr ?? null,
            gate: result.gate,
            timings: result.timings,
            dir: result.dir,
          }),
        );
      }
    } finally {
      progress?.stop();
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
    }
  });
}
