/** Where ingest reports how far it is; the CLI picks a bar or log lines. */
export interface ProgressSink {
  /** `fraction` of the file read, lines and edges so far. */
  update(state: ProgressState): void;
  done(): void;
}

export interface ProgressState {
  phase: 'validate' | 'write';
  fraction: number;
  lines: number;
  triples: number;
  seconds: number;
}

export const silentProgress: ProgressSink = { update: () => undefined, done: () => undefined };

const rate = (s: ProgressState) => (s.seconds > 0 ? Math.round(s.triples / s.seconds) : 0);
const eta = (s: ProgressState) =>
  s.fraction > 0.01
    ? `${Math.max(0, Math.round((s.seconds / s.fraction) * (1 - s.fraction)))}s`
    : '?';

/** A one-line bar redrawn in place (a terminal), at most ten times a second. */
export function barProgress(write: (text: string) => void, width = 30): ProgressSink {
  let last = 0;
  let drawn = false;
  return {
    update(s) {
      const now = Date.now();
      if (now - last < 100 && s.fraction < 1) return;
      last = now;
      drawn = true;
      const filled = Math.round(Math.min(1, s.fraction) * width);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
      const pct = `${Math.floor(s.fraction * 100)}`.padStart(3);
      write(
        `\r${s.phase.padEnd(8)} [${bar}] ${pct}%  ${s.lines.toLocaleString('en')} lines  ` +
          `${rate(s).toLocaleString('en')} triples/s  ETA ${eta(s)}   `,
      );
    },
    done() {
      if (drawn) write('\n');
    },
  };
}

/** Plain structured lines (logs, CI): one every `everyMs`. */
export function logProgress(write: (line: string) => void, everyMs = 5000): ProgressSink {
  let last = Date.now();
  return {
    update(s) {
      const now = Date.now();
      if (now - last < everyMs) return;
      last = now;
      write(
        `ingest phase=${s.phase} progress=${(s.fraction * 100).toFixed(1)}% lines=${s.lines} ` +
          `triples=${s.triples} rate=${rate(s)}/s eta=${eta(s)}`,
      );
    },
    done: () => undefined,
  };
}
