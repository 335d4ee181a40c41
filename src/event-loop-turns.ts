/**
 * Lets a long synchronous loop give the event loop a turn at least every `sliceMs`, so timers
 * (the training job's lease renewal) and I/O still run while it works. Check `due()` every few
 * thousand iterations (it reads the clock) and `await turn()` when it says so.
 */
export class EventLoopTurns {
  private sliceStart = performance.now();

  constructor(readonly sliceMs = 10) {}

  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** One trip round the event loop (timers, I/O), then a fresh slice. */
  async turn(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }

  async maybeTurn(): Promise<void> {
    if (this.due()) await this.turn();
  }
}

/** Iterations between two clock reads in a paced loop: cheap next to the loop's own work. */
export const TURN_CHECK_EVERY = 1024;
