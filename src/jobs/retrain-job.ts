import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { suggestAfterPromotion } from './suggest-after-promotion';
import { ErrorCode, KgcError, toKgcError } from '../errors';
import type { Database } from '../graph';
import {
  finishTrainingRun,
  markInterruptedRuns,
  startTrainingRun,
  updateRunProgress,
} from '../graph/registry';
import { DEFAULT_STABLE_SPLIT } from '../export';
import { isVersionId, openModelStore } from '../model';
import type { ModelStore } from '../model';
import type { RetrainOptions, RetrainResult } from './retrain-types';
import { LeaseKeeper } from './lease-keeper';
import { applyRetention, describeSweep } from './model-retention';
import { PhaseTimer } from './job-phases';
import { retrainSteps } from './retrain-steps';

function newRunId(): string {
  return `run-${new Date().toISOString().replace(/[-:.]/g, '')}-${crypto.randomBytes(3).toString('hex')}`;
}

/** Retention after a publish; a failure is logged, never the job's (its version is safe). */
async function retain(
  db: Database,
  store: ModelStore,
  keep: number,
  scope: string,
  log: (line: string) => void,
): Promise<void> {
  try {
    const { removed, swept } = await applyRetention(db, store, keep, scope);
    if (removed.length > 0) {
      log(
        `removed ${removed.length} old version(s) (KGC_MODEL_KEEP=${keep}): ${removed.join(', ')}`,
      );
    }
    const abandoned = swept && describeSweep(swept);
    if (abandoned) log(abandoned);
  } catch (error) {
    log(`could not apply retention: ${(error as Error).message}`);
  }
}

/**
 * One retraining job against the graph: export, stable split, train, evaluate, write the version
 * atomically, register it, and promote it through the gate. One job at a time per scope (a
 * lease in Neo4j). Whatever happens, the registry stays consistent: the run ends `failed` or
 * `interrupted` (aborted), no half-written version is left in the store or registry, and the
 * active version changes only by the promotion's single transaction.
 */
export async function runRetrainJob(
  db: Database,
  config: Config,
  options: RetrainOptions = {},
): Promise<RetrainResult> {
  const store = options.store ?? openModelStore(config.lifecycle);
  const scope = options.scope ?? config.lifecycle.registryScope;
  const log = options.log ?? (() => undefined);
  const controller = new AbortController();
  const abortFrom = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) abortFrom();
  options.signal?.addEventListener('abort', abortFrom, { once: true });
  const lease = await LeaseKeeper.acquire(db, {
    scope,
    ttlSeconds: options.leaseSeconds ?? config.lifecycle.leaseSeconds,
    onLost: (why) => {
      log(`stopping: ${why}`);
      controller.abort(
        new KgcError(
          ErrorCode.JOB_LEASE_LOST,
          `The training job lost its lease: ${why}. It stopped and promoted nothing.`,
        ),
      );
    },
  });
  try {
    // Holding the lease, no other job runs: running runs are orphans, temp dirs leftovers.
    const orphans = await markInterruptedRuns(
      db,
      { reason: 'its job ended without finishing (process stopped or killed)' },
      scope,
    );
    const removed = store.cleanStale();
    if (orphans > 0 || removed.length > 0) {
      log(
        `cleaned up after a stopped job: ${orphans} run(s) marked interrupted, ${removed.length} temp dir(s) removed`,
      );
    }
    const runId = newRunId();
    const trigger = options.trigger ?? 'manual';
    await startTrainingRun(db, { id: runId, trigger, holder: lease.holder }, scope);
    await lease.attachRun(runId);
    options.onRunStarted?.({ runId, holder: lease.holder });
    // Advisory, like training progress, and written one at a time, all landed before the run's
    // end is: a phase write racing the end would overwrite the phase the run ended in.
    let phaseWrites = Promise.resolve();
    const timer = new PhaseTimer((phase) => {
      phaseWrites = phaseWrites
        .then(() => updateRunProgress(db, runId, { phase }))
        .catch(() => undefined);
      options.onPhase?.(phase);
    });
    const tempDirs: string[] = [];
    try {
      const result = await retrainSteps({
        db,
        store,
        scope,
        runId,
        trigger,
        timer,
        tempDirs,
        signal: controller.signal,
        lease: lease.token,
        split: { ...DEFAULT_STABLE_SPLIT, ...options.split },
        options: { ...options, device: options.device ?? config.lifecycle.trainDevice },
        log,
      });
      timer.end();
      await phaseWrites;
      await finishTrainingRun(db, runId, {
        status: result.status,
        phase: 'done',
        version: result.version ?? undefined,
        promoted: result.promoted,
        reason: result.reason ?? undefined,
        candidateMrr: result.candidateMrr,
        activeMrr: result.activeMrr,
        changedEdges: result.changedEdges ?? undefined,
        timings: timer.seconds,
      });
      if (result.promoted && result.version && result.dir) {
        const promoted = { version: result.version, dir: result.dir };
        const perRelation = config.lifecycle.suggestionsPerRelation;
        await suggestAfterPromotion(db, store, promoted, perRelation, log, controller.signal);
      }
      if (result.version) await retain(db, store, config.lifecycle.modelKeep, scope, log);
      return { ...result, runId, timings: timer.seconds };
    } catch (error) {
      const phase = timer.last ?? undefined;
      timer.end();
      for (const dir of tempDirs) {
        fs.rmSync(dir, { recursive: true, force: true });
        // Published but never registered: its remote copy goes too (no reader looks for it).
        const version = path.basename(dir);
        if (store.remote && isVersionId(version)) {
          await store.remote.remove(version).catch(() => undefined);
        }
      }
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
      const failure =
        reason instanceof KgcError
          ? reason
          : controller.signal.aborted
            ? new KgcError(ErrorCode.TRAINING_ABORTED, 'The training job was stopped.')
            : toKgcError(error);
      // A job that lost its lease failed (whoever took the lease may have marked it interrupted).
      const leaseLost = failure.code === ErrorCode.JOB_LEASE_LOST;
      await phaseWrites;
      await finishTrainingRun(
        db,
        runId,
        {
          status: controller.signal.aborted && !leaseLost ? 'interrupted' : 'failed',
          phase,
          error: failure.message,
          errorCode: failure.code,
          timings: timer.seconds,
        },
        { overInterrupted: leaseLost },
      ).catch((e: unknown) => log(`could not record the run's end: ${(e as Error).message}`));
      throw failure;
    }
  } finally {
    options.signal?.removeEventListener('abort', abortFrom);
    await lease.release();
  }
}
export type { RetrainOptions, RetrainResult } from './retrain-types';
