import { loadConfig } from '../config';
import { toKgcError } from '../errors';
import { openDatabase } from '../graph';
import { runRetrainJob, type ChildJobRequest, type ChildMessage } from '../jobs';
import { trainingProgress } from './progress/training-progress';

function send(message: ChildMessage): void {
  process.send?.(message);
}

/**
 * The child process of `kgc worker`: runs one job (training never runs in the worker's or the
 * API's process) and exits. It stops the job (its run ends `interrupted`) on a `stop` message,
 * SIGTERM or SIGINT, or when the worker goes away (the IPC channel closes).
 */
async function main(): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  // A stray rejection (a timer's callback, a stream) would end the process with a stack trace
  // and no word to the worker: report it as the job's failure and stop the job cleanly.
  process.on('unhandledRejection', (reason) => {
    fail(reason);
    stop();
  });
  let request: ChildJobRequest;
  let config: ReturnType<typeof loadConfig>;
  try {
    request = JSON.parse(process.argv[2] ?? '{}') as ChildJobRequest;
    config = loadConfig();
  } catch (error) {
    fail(error);
    return;
  }
  const db = openDatabase(config);
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'stop') stop();
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  // Log lines, not a bar: the worker's output is a log.
  let progress: ReturnType<typeof trainingProgress> | undefined;
  try {
    const relations = request.relations ?? config.lifecycle.retrainRelations;
    const result = await runRetrainJob(db, config, {
      trigger: request.trigger,
      preset: request.preset,
      overrides: request.overrides,
      timeBudgetSeconds: request.timeBudgetSeconds,
      device: request.device,
      force: request.force,
      fromScratch: request.fromScratch,
      minChangedEdges: request.minChangedEdges,
      minNewEntities: request.minNewEntities,
      filter: relations ? { relations } : undefined,
      signal: controller.signal,
      log: (line) => process.stderr.write(`job: ${line}\n`),
      onPhase: (phase) => process.stderr.write(`job: phase=${phase}\n`),
      onTrainingConfig: (engine) =>
        (progress = trainingProgress(Number(engine.epochs), { prefix: 'job: ', plain: true })),
      onProgress: (event) => progress?.report(event),
      onRunStarted: (run) => send({ type: 'started', ...run }),
    });
    send({
      type: 'done',
      status: result.status,
      version: result.version,
      promoted: result.promoted,
      candidateMrr: result.candidateMrr,
      activeMrr: result.activeMrr,
    });
  } catch (error) {
    fail(error);
  } finally {
    progress?.stop();
    await db.close().catch((error: unknown) => fail(error));
  }
}

/** Tells the worker why the job failed (once) and sets a failing exit code. */
let failed = false;
function fail(error: unknown): void {
  process.exitCode = 1;
  if (failed) return;
  failed = true;
  const failure = toKgcError(error);
  process.stderr.write(`job: failed [${failure.code}] ${failure.message}\n`);
  send({ type: 'failed', code: failure.code, message: failure.message });
}

if (require.main === module) {
  main()
    .catch(fail)
    .finally(() => {
      if (process.connected) process.disconnect();
    });
}
