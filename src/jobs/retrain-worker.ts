import { fork } from 'node:child_process';
import readline from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { Cron } from 'croner';
import type { Database } from '../graph';
import {
  getActiveVersion,
  markInterruptedRuns,
  pendingRetrainRequests,
  releaseLease,
} from '../graph/registry';
import type { ChildJobRequest, ChildMessage } from './child-job';

export interface WorkerOptions {
  /** Cron expression of scheduled runs (warm starts by default); undefined: requests only. */
  cron?: string;
  /** Cron expression of scheduled full retrains (from a fresh init); undefined: none. */
  fullCron?: string;
  pollSeconds: number;
  /**
   * Scheduled runs train when at least this many edges changed, or `minNewEntities` new
   * entities arrived, since the active version, and are skipped otherwise (0: that threshold
   * is off; both off: every scheduled run trains). Requested runs always train.
   */
  minChangedEdges: number;
  minNewEntities?: number;
  scope: string;
  /** Settings of every job (the trigger is the worker's). */
  job: Omit<ChildJobRequest, 'trigger' | 'minChangedEdges' | 'minNewEntities'>;
  log: (line: string) => void;
  /**
   * Each line the job's child writes (progress and its own log, stdout and stderr); unset: the
   * child writes to this process's streams directly.
   */
  childOutput?: (line: string, runId: string | undefined) => void;
  /** The child's entry script: runs one job from the request in its argv (src/cli/job-child.ts). */
  jobScript: string;
  /** How long a stopping child may take before it is killed. */
  stopTimeoutMs?: number;
  /** At start, run a job at once when no version is active (a fresh deployment). */
  trainIfEmpty?: boolean;
}

interface RunningJob {
  child: ChildProcess;
  trigger: string;
  runId?: string;
  holder?: string;
  exited: Promise<ChildMessage | null>;
}

/** The trigger of runs started by the full-retrain schedule (`KGC_FULL_RETRAIN_CRON`). */
export const FULL_RETRAIN_TRIGGER = 'full-schedule';

/**
 * What the child is asked for a run started by `trigger`: the full-retrain schedule trains from
 * a fresh init and always runs; every other run warm-starts from the active version (the job's
 * default), and scheduled ones are skipped when too few edges changed.
 */
export function jobRequest(
  trigger: string,
  options: Pick<WorkerOptions, 'job' | 'minChangedEdges' | 'minNewEntities'>,
): ChildJobRequest {
  const scheduled = trigger === 'schedule';
  return {
    ...options.job,
    trigger,
    fromScratch: trigger === FULL_RETRAIN_TRIGGER,
    minChangedEdges: scheduled ? options.minChangedEdges : 0,
    minNewEntities: scheduled ? (options.minNewEntities ?? 0) : 0,
  };
}

/**
 * A scheduled warm start gives way to a full retrain due within a minute of it (`fullNext`: the
 * full schedule's run at or after a minute ago), as when daily and weekly runs meet at 3:00: one
 * job at a time, and the full one makes the other redundant.
 */
export function supersededByFullRetrain(fullNext: Date | null, now: Date): boolean {
  return fullNext !== null && Math.abs(fullNext.getTime() - now.getTime()) <= 60_000;
}

/**
 * Runs the retraining job on a schedule and on request, each job in a child process so the
 * worker stays responsive; one job at a time here, and across workers through the lease the
 * job takes (a child that finds it held exits with JOB_LOCKED and the next tick tries again).
 */
export class RetrainWorker {
  private cron: Cron | undefined;
  private fullCron: Cron | undefined;
  private poll: NodeJS.Timeout | undefined;
  private running: RunningJob | undefined;
  private stopping = false;
  private checking = false;

  constructor(
    private readonly db: Database,
    private readonly options: WorkerOptions,
  ) {}

  start(): void {
    if (this.options.fullCron) {
      this.fullCron = new Cron(this.options.fullCron, () => {
        this.launch(FULL_RETRAIN_TRIGGER);
      });
    }
    if (this.options.cron) {
      this.cron = new Cron(this.options.cron, () => {
        const now = new Date();
        // The full schedule's run from a minute ago on: it may not have fired yet this minute.
        const fullNext = this.fullCron?.nextRun(new Date(now.getTime() - 60_000)) ?? null;
        if (supersededByFullRetrain(fullNext, now)) {
          this.options.log('scheduled run left to the full retrain due at the same time');
          return;
        }
        this.launch('schedule');
      });
    }
    this.poll = setInterval(() => void this.checkRequests(), this.options.pollSeconds * 1000);
    if (this.options.trainIfEmpty) void this.trainIfEmpty();
    else void this.checkRequests();
  }

  private async trainIfEmpty(): Promise<void> {
    try {
      if ((await getActiveVersion(this.db, this.options.scope)) === null) this.launch('initial');
      else await this.checkRequests();
    } catch (error) {
      this.options.log(`could not read the active version: ${(error as Error).message}`);
    }
  }

  /** When the next scheduled run is due, if any. */
  nextRun(): Date | null {
    return this.cron?.nextRun() ?? null;
  }

  /** When the next scheduled full retrain is due, if any. */
  nextFullRun(): Date | null {
    return this.fullCron?.nextRun() ?? null;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  private async checkRequests(): Promise<void> {
    if (this.running || this.stopping || this.checking) return;
    this.checking = true;
    try {
      const pending = await pendingRetrainRequests(this.db, this.options.scope);
      if (pending > 0 && !this.running && !this.stopping) this.launch('request');
    } catch (error) {
      this.options.log(`could not look for retraining requests: ${(error as Error).message}`);
    } finally {
      this.checking = false;
    }
  }

  /** Starts a job in a child unless one is running; resolves when the child has exited. */
  launch(trigger: string): Promise<ChildMessage | null> | null {
    if (this.stopping) return null;
    if (this.running) {
      this.options.log(
        `${trigger} run skipped: run ${this.running.runId ?? '(starting)'} is still going`,
      );
      return null;
    }
    const request = jobRequest(trigger, this.options);
    const relay = this.options.childOutput;
    const child = fork(this.options.jobScript, [JSON.stringify(request)], {
      stdio: ['ignore', relay ? 'pipe' : 'inherit', relay ? 'pipe' : 'inherit', 'ipc'],
    });
    let last: ChildMessage | null = null;
    const job: RunningJob = {
      child,
      trigger,
      exited: new Promise((resolve) => {
        child.once('exit', (code, signal) => {
          this.running = undefined;
          this.report(job, last, code, signal);
          resolve(last);
        });
      }),
    };
    if (relay) {
      for (const stream of [child.stdout, child.stderr]) {
        if (stream)
          readline.createInterface({ input: stream }).on('line', (line) => relay(line, job.runId));
      }
    }
    // A failed send or kill is reported here; unheard, it would end the worker.
    child.on('error', (error) => this.options.log(`job child: ${error.message}`));
    child.on('message', (message: ChildMessage) => {
      last = message;
      if (message.type === 'started') {
        job.runId = message.runId;
        job.holder = message.holder;
        this.options.log(`job started: run ${message.runId} (${trigger}), pid ${child.pid}`);
      }
    });
    this.running = job;
    return job.exited;
  }

  private report(
    job: RunningJob,
    last: ChildMessage | null,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): void {
    const run = job.runId ?? '(none)';
    if (last?.type === 'done') {
      const scores = `candidate MRR ${last.candidateMrr?.toFixed(4) ?? 'n/a'}, active ${last.activeMrr?.toFixed(4) ?? 'n/a'}`;
      this.options.log(
        `job ended: run ${run} ${last.status}${last.version ? ` version ${last.version}` : ''}` +
          `${last.promoted ? ' (promoted)' : ''}; ${scores}`,
      );
    } else if (last?.type === 'failed') {
      this.options.log(`job ended: run ${run} failed [${last.code}] ${last.message}`);
    } else {
      this.options.log(`job ended: run ${run}, child exited (code ${code}, signal ${signal})`);
    }
  }

  /**
   * Stops scheduling, stops the running child (its run ends `interrupted`), and waits for it;
   * a child that does not stop in time is killed, and its run and lease are cleaned up here.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.cron?.stop();
    this.fullCron?.stop();
    clearInterval(this.poll);
    const job = this.running;
    if (!job) return;
    this.options.log(`stopping run ${job.runId ?? '(starting)'} (pid ${job.child.pid})`);
    // The child may be closing its channel as its job ends: a failed send falls back to SIGTERM.
    if (job.child.connected) {
      job.child.send({ type: 'stop' }, (error) => {
        if (error) job.child.kill('SIGTERM');
      });
    } else {
      job.child.kill('SIGTERM');
    }
    const timeout = new Promise<'timeout'>((resolve) => {
      setTimeout(() => resolve('timeout'), this.options.stopTimeoutMs ?? 30_000).unref();
    });
    if ((await Promise.race([job.exited, timeout])) === 'timeout') {
      job.child.kill('SIGKILL');
      await job.exited;
    }
    // Only changes a run the child could not end itself.
    if (job.runId) {
      const reason = 'the worker stopped (SIGTERM) during the job';
      await markInterruptedRuns(this.db, { ids: [job.runId], reason }, this.options.scope).catch(
        () => undefined,
      );
    }
    if (job.holder) {
      await releaseLease(this.db, job.holder, this.options.scope).catch(() => undefined);
    }
  }
}
