import { ErrorCode, KgcError } from '../errors';

export interface CircuitBreakerOptions {
  /**
   * A call that takes longer fails with DATABASE_TIMEOUT (a database that hangs), and a probe
   * decides whether the database is away or was only slow for that call.
   */
  callTimeoutMs: number;
  /**
   * The server-side transaction timeout under this backstop, when there is one: the message
   * then says that a write not committed by then is rolled back by the server.
   */
  serverTimeoutMs?: number;
  /** How often an open breaker checks whether the database is back. */
  probeEveryMs: number;
}

/**
 * Fail fast while the database is away. Closed: calls pass (each bounded by `callTimeoutMs`).
 * The driver reporting the database unreachable opens it, as does a timed-out call whose probe
 * (`RETURN 1`) fails too: calls then fail at once, and a probe runs every `probeEveryMs` until
 * one succeeds, which closes it again. A slow query alone (a cold server planning a new query
 * on a busy machine) never opens it.
 */
export class CircuitBreaker {
  private openSince: number | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private probing = false;

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
    const timedOut = noAnswer(this.options);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut), this.options.callTimeoutMs);
    });
    try {
      return await Promise.race([call(), timeout]);
    } catch (error) {
      if (error === timedOut) void this.probeOnce();
      else if (error instanceof KgcError && error.code === ErrorCode.DATABASE_UNAVAILABLE) {
        this.trip();
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** After a timeout: open only if the database does not answer a trivial query either. */
  private async probeOnce(): Promise<void> {
    if (this.isOpen || this.probing) return;
    this.probing = true;
    try {
      if (!(await this.probeAnswers())) this.trip();
    } finally {
      this.probing = false;
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
    if (await this.probeAnswers()) this.openSince = undefined;
    else if (this.isOpen) this.scheduleProbe();
  }

  /** Whether `RETURN 1` answers within the call timeout. */
  private async probeAnswers(): Promise<boolean> {
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
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}

function noAnswer(options: CircuitBreakerOptions): KgcError {
  const server = options.serverTimeoutMs;
  return new KgcError(
    ErrorCode.DATABASE_TIMEOUT,
    `The database did not answer within ${options.callTimeoutMs} ms.` +
      (server === undefined
        ? ''
        : ` It rolls back a transaction still open after ${server} ms, so a write it had not ` +
          'committed by then is not in the graph; check before retrying a write.') +
      ' If it keeps happening, check the database.',
  );
}

function unavailable(why: string): KgcError {
  return new KgcError(ErrorCode.DATABASE_UNAVAILABLE, `The database is unavailable (${why}).`);
}
