import type { Database } from '../graph';
import { updateRunProgress } from '../graph/registry';
import type { RunProgress } from '../graph/registry';
import type { CurvePoint, TrainingProgress } from '../model';

/**
 * Follows training events: keeps the per-epoch curve (loss, validation MRR) and writes the
 * run's progress to its TrainingRun node at most every `intervalMs` (one write in flight at a
 * time; a failed write is logged and the next one tries again: progress is advisory).
 */
export class RunProgressWriter {
  readonly curve: CurvePoint[] = [];
  private latest: RunProgress = {};
  private lastWrite = 0;
  private inFlight: Promise<void> | null = null;
  private readonly epochSeconds: number[] = [];

  constructor(
    private readonly db: Database,
    private readonly runId: string,
    private readonly epochs: number,
    private readonly intervalMs: number,
    private readonly warn: (line: string) => void,
  ) {}

  onEvent(event: TrainingProgress): void {
    if (event.kind === 'epoch') {
      this.curve.push({ epoch: event.epoch, loss: event.loss });
      if (event.seconds !== undefined) this.epochSeconds.push(event.seconds);
      const mean = this.epochSeconds.reduce((a, b) => a + b, 0) / this.epochSeconds.length;
      this.latest = {
        ...this.latest,
        phase: 'train',
        epoch: event.epoch,
        epochs: this.epochs,
        loss: event.loss,
        etaSeconds: Number.isFinite(mean)
          ? Math.max(0, (this.epochs - event.epoch) * mean)
          : undefined,
      };
      this.maybeWrite();
    } else if (event.kind === 'validation' && event.metrics) {
      const mrr = event.metrics.overall.mrr;
      const point = this.curve.find((p) => p.epoch === event.epoch);
      if (point) point.validMrr = mrr;
      else this.curve.push({ epoch: event.epoch, validMrr: mrr });
      this.latest = { ...this.latest, validMrr: mrr };
      this.maybeWrite();
    }
  }

  private maybeWrite(): void {
    const now = Date.now();
    if (this.inFlight || now - this.lastWrite < this.intervalMs) return;
    this.lastWrite = now;
    const progress = this.latest;
    this.inFlight = updateRunProgress(this.db, this.runId, progress)
      .catch((error: unknown) => this.warn(`progress not recorded: ${(error as Error).message}`))
      .finally(() => (this.inFlight = null));
  }

  /** Waits for the write in flight, then records the last state. */
  async flush(): Promise<void> {
    await this.inFlight;
    await updateRunProgress(this.db, this.runId, this.latest).catch(() => undefined);
  }
}
