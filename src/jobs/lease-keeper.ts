import crypto from 'node:crypto';
import os from 'node:os';
import { ErrorCode, KgcError } from '../errors';
import type { Database } from '../graph';
import { acquireLease, releaseLease, renewLease } from '../graph/registry';
import type { LeaseToken } from '../graph/registry';

export interface LeaseOptions {
  scope: string;
  ttlSeconds: number;
  /** Called once when the lease is lost (it expired and another job may have taken it). */
  onLost?: (why: string) => void;
}

/**
 * Holds the training lease for one job: acquired at start (JOB_LOCKED when another live job
 * holds it), renewed every third of its time to live, released at the end. A holder that dies
 * stops renewing, and the lease expires for the next job. Renewal is a timer: it fires only
 * when the event loop is free, so the job's long loops give it turns (EventLoopTurns). `token`
 * (holder and generation) is the fencing token the promotion checks in its transaction.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private lastRenewed = Date.now();
  private runId: string | undefined;
  private lost = false;
  /** Successful renewals so far. */
  renewals = 0;

  private constructor(
    private readonly db: Database,
    readonly holder: string,
    readonly generation: number,
    private readonly options: LeaseOptions,
  ) {}

  get token(): LeaseToken {
    return { holder: this.holder, generation: this.generation };
  }

  static newHolder(): string {
    return `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  }

  static async acquire(db: Database, options: LeaseOptions): Promise<LeaseKeeper> {
    const holder = LeaseKeeper.newHolder();
    const attempt = await acquireLease(
      db,
      { holder, ttlSeconds: options.ttlSeconds },
      options.scope,
    );
    if (!attempt.acquired) {
      throw new KgcError(
        ErrorCode.JOB_LOCKED,
        `Another training job is running (holder ${attempt.holder ?? 'unknown'}` +
          `${attempt.runId ? `, run ${attempt.runId}` : ''}, lease until ${attempt.expiresAt}): ` +
          'wait for it, or for its lease to expire if it died.',
      );
    }
    const keeper = new LeaseKeeper(db, holder, attempt.generation, options);
    keeper.timer = setInterval(() => void keeper.renew(), (options.ttlSeconds * 1000) / 3);
    keeper.timer.unref();
    return keeper;
  }

  /** Records the run on the lease, so others can tell which run holds it. */
  async attachRun(runId: string): Promise<void> {
    this.runId = runId;
    await this.renew();
  }

  private async renew(): Promise<void> {
    if (this.lost) return;
    try {
      const held = await renewLease(
        this.db,
        {
          holder: this.holder,
          generation: this.generation,
          ttlSeconds: this.options.ttlSeconds,
          runId: this.runId,
        },
        this.options.scope,
      );
      if (held) {
        this.lastRenewed = Date.now();
        this.renewals++;
      } else this.markLost('the lease expired and was taken by another job');
    } catch (error) {
      // A database blip: keep trying until the lease would have expired.
      if (Date.now() - this.lastRenewed > this.options.ttlSeconds * 1000) {
        this.markLost(`the lease could not be renewed (${(error as Error).message})`);
      }
    }
  }

  private markLost(why: string): void {
    if (this.lost) return;
    this.lost = true;
    clearInterval(this.timer);
    this.options.onLost?.(why);
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    if (this.lost) return;
    await releaseLease(this.db, this.holder, this.options.scope).catch(() => undefined);
  }
}
