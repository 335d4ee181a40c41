import fs from 'node:fs';

/** The operator's "stop now" file: the bench aborts what it runs, cleans up and exits. */
export const STOP_FILE = '/tmp/kgc-stop-bench';

export class StopRequested extends Error {
  constructor() {
    super(`${STOP_FILE} appeared: stopped`);
  }
}

/** Watches for STOP_FILE; `signal` aborts training and load runs, `check()` throws between steps. */
export class Stopper {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly file = STOP_FILE) {
    this.timer = setInterval(() => {
      if (fs.existsSync(this.file)) this.controller.abort(new StopRequested());
    }, 500);
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  check(): void {
    if (this.stopped || fs.existsSync(this.file)) throw new StopRequested();
  }

  dispose(): void {
    clearInterval(this.timer);
  }
}
