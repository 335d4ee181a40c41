import { ErrorCode, KgcError } from '../errors';

export interface CircuitBreakerOptions {
  /** A call that takes longer counts as the database being away (it fails with UNAVAILABLE). */
  callTimeoutMs: number;
  /** How often an open breaker checks whether the database is back. */
  probeEveryMs: number;
}

/**
 * Fail fast while the database is away. Closed: calls pass (each bounded by `callTimeoutMs`).
 * A call failing with DATABASE_UNAVAILABLE (or timing out) opens it: calls then fail at once,
 * and a probe runs every `probeEveryMs` until one succeeds, which closes it again. No request
 * waits for the driver's retry window while the database is down.
 */
export class CircuitBreaker {
  private openSince: number | undefined;
  private probeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: CircuitBreakerOptions,
    private readonly probe: () => Promise<void>,
  ) {}

  get isOpen(): boolean {
    return this.openSince !== undefined;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.isOpen)
      throw unavailable('the database did not answer recently; retrying in the background');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(unavailable(`no answer within ${this.options.callTimeoutMs} ms`)),
        this.options.callTimeoutMs,
      );
    });
    try {
      return await Promise.race([call(), timeout]);
    } catch (error) {
      if (error instanceof KgcError && error.code === ErrorCode.DATABASE_UNAVAILABLE) this.trip();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Opens the breaker and starts probing (no-op when already open). */
  trip(): void {
    if (this.isOpen) return;
    this.openSince = Date.now();
    this.scheduleProbe();
  }

  stop(): void {
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
  }

  private scheduleProbe(): void {
    this.probeTimer = setTimeout(() => {
      void this.runProbe();
    }, this.options.probeEveryMs);
    this.probeTimer.unref();
  }

  private async runProbe(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.probe(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error('probe timed out')),
            this.options.callTimeoutMs,
          );
        }),
      ]);
      this.openSince = undefined;
    } catch {
      if (this.isOpen) this.scheduleProbe();
    } finally {
      clearTimeout(timer);
    }
  }
}

function unavailable(why: string): KgcError {
  return new KgcError(ErrorCode.DATABASE_UNAVAILABLE, `The database is unavailable (${why}).`);
}
