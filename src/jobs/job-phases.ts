/** Wall time of each job phase, in seconds, in the order the phases ran. */
export class PhaseTimer {
  readonly seconds: Record<string, number> = {};
  current: string | null = null;
  /** The phase started last (still set after it ended: the phase a failure happened in). */
  last: string | null = null;
  private started = 0;

  constructor(private readonly onPhase?: (phase: string) => void) {}

  /** Ends the running phase (if any) and starts `phase`. */
  start(phase: string): void {
    this.end();
    this.current = phase;
    this.last = phase;
    this.started = performance.now();
    this.onPhase?.(phase);
  }

  end(): void {
    if (this.current === null) return;
    this.seconds[this.current] =
      (this.seconds[this.current] ?? 0) + (performance.now() - this.started) / 1000;
    this.current = null;
  }

  /** Runs `work` as `phase`. */
  async time<T>(phase: string, work: () => Promise<T> | T): Promise<T> {
    this.start(phase);
    try {
      return await work();
    } finally {
      this.end();
    }
  }
}
