import { MultiBar, Presets, type SingleBar } from 'cli-progress';

/** Values for a bar format's `{name}` placeholders. */
export type BarPayload = Record<string, string | number>;

/** Bar resolution: fractions are drawn in thousandths. */
const STEPS = 1000;

/** `{eta_formatted}`: cli-progress passes "NULL" or "INF" until it has a rate. */
function duration(seconds: number | string): string {
  const t = Number(seconds);
  if (!Number.isFinite(t) || t < 0) return '--';
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = Math.floor(t % 60);
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  return m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}

/**
 * The one terminal rendering of long work (ingest, export, training), on stderr so stdout
 * keeps the command's result: a cli-progress bar redrawn in place on a TTY, plain lines
 * otherwise (logs and CI read those). The views in this folder decide what to show.
 */
export class ProgressDisplay {
  /** Whether a bar is drawn; plain lines only when false. */
  readonly interactive: boolean;
  private bars: MultiBar | undefined;
  private bar: SingleBar | undefined;

  constructor(
    private readonly format: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    options: { plain?: boolean } = {},
  ) {
    this.interactive = stream.isTTY === true && options.plain !== true;
  }

  /** Redraws the bar at `fraction` (0 to 1) of the work; nothing without a terminal. */
  show(fraction: number, payload: BarPayload): void {
    if (!this.interactive) return;
    const value = Math.round(Math.min(1, Math.max(0, fraction)) * STEPS);
    if (this.bar) {
      this.bar.update(value, payload);
      return;
    }
    this.bars = new MultiBar(
      {
        format: this.format,
        stream: this.stream,
        barsize: 30,
        etaBuffer: 100,
        formatTime: (t) => duration(t),
        // Cut the bar to the terminal's width rather than switch wrapping off: a process killed
        // mid-bar would leave the terminal without line wrap.
        linewrap: true,
      },
      Presets.legacy,
    );
    this.bar = this.bars.create(STEPS, value, payload);
  }

  /** A line for the record: above the bar on a terminal, a plain line otherwise. */
  line(text: string): void {
    if (this.bars) this.bars.log(`${text}\n`);
    else this.stream.write(`${text}\n`);
  }

  /**
   * Leaves the bar's last state on screen and ends its redraw timer (which would otherwise keep
   * the process alive); the next `show` starts a new bar. Call it when the work ends or fails.
   */
  stop(): void {
    if (!this.bars) return;
    this.bars.update(); // flushes lines logged since the last redraw
    this.bars.stop();
    this.bars = undefined;
    this.bar = undefined;
  }
}

/** A gate for plain lines: true at most once every `ms` (the first call waits `ms` too). */
export function every(ms: number): () => boolean {
  let last = Date.now();
  return () => {
    const now = Date.now();
    if (now - last < ms) return false;
    last = now;
    return true;
  };
}

/** A view of one kind of progress event; `stop` once the work has ended. */
export interface ProgressReporter<Event> {
  report(event: Event): void;
  stop(): void;
}
