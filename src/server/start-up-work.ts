import type { Logger } from './logger';

/**
 * Start-up work that competes with serving or leaves the first requests slow (warm-up.ts, the
 * fold-ins of the entities the version lacks, an approximate index): `/readyz` says not ready
 * while any of it runs, so a load balancer sends no traffic into it, for at most `maxWaitMs`. Past that bound
 * readiness stops waiting and the log says what was still running; work that fails counts as
 * done (it is logged where it runs, and the first requests pay for it instead).
 */
export class StartUpWork {
  private readonly running = new Map<string, Promise<void>>();
  private readonly started = Date.now();
  private readonly abort = new AbortController();
  private overdue = false;

  constructor(
    private readonly maxWaitMs: number,
    private readonly logger: Logger,
  ) {}

  /** Runs `work` now and tracks it under `name` until it settles; `signal` says stop early. */
  add(name: string, work: (signal: AbortSignal) => Promise<unknown>): void {
    const began = Date.now();
    const done = Promise.resolve()
      .then(() => work(this.abort.signal))
      .then(
        () => this.logger.info({ work: name, ms: Date.now() - began }, 'start-up work done'),
        (error: unknown) =>
          this.logger.warn(
            { err: error, work: name },
            'start-up work failed (requests pay for it)',
          ),
      )
      .finally(() => this.running.delete(name));
    this.running.set(name, done);
  }

  /**
   * What readiness still waits for, by name: empty once everything settled or `maxWaitMs`
   * after the start (then the first call says, once, what is still running).
   */
  waitingFor(): string[] {
    if (this.running.size === 0) return [];
    if (Date.now() - this.started < this.maxWaitMs) return [...this.running.keys()];
    if (!this.overdue) {
      this.overdue = true;
      this.logger.warn(
        { running: [...this.running.keys()], maxWaitMs: this.maxWaitMs },
        'ready before the start-up work finished: it ran past KGC_READY_MAX_WAIT_SECONDS and goes on beside serving',
      );
    }
    return [];
  }

  /** Tells the work to stop early (a server stopping); `settled()` then comes soon. */
  stop(): void {
    this.abort.abort();
  }

  /** Settles when every piece of work added so far has settled. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running.values());
  }
}
