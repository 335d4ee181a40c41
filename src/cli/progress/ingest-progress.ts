import type { IngestProgress } from '../../ingest';
import { every, ProgressDisplay, type ProgressReporter } from './progress-display';

const rate = (p: IngestProgress) => (p.seconds > 0 ? Math.round(p.triples / p.seconds) : 0);
const eta = (p: IngestProgress) =>
  p.fraction > 0.01
    ? `${Math.max(0, Math.round((p.seconds / p.fraction) * (1 - p.fraction)))}s`
    : '?';

/** `kgc ingest`: a bar per phase (validate, write) on a terminal, a log line every 5 s otherwise. */
export function ingestProgress(
  stream: NodeJS.WriteStream = process.stderr,
): ProgressReporter<IngestProgress> {
  const view = new ProgressDisplay(
    '{phase} [{bar}] {percentage}% | {lines} lines | {rate} triples/s | ETA {eta_formatted}',
    stream,
  );
  const due = every(5000);
  let phase: IngestProgress['phase'] | undefined;
  return {
    report(p) {
      if (phase !== undefined && p.phase !== phase) view.stop();
      phase = p.phase;
      view.show(p.fraction, {
        phase: p.phase.padEnd(8),
        lines: p.lines.toLocaleString('en'),
        rate: rate(p).toLocaleString('en'),
      });
      if (!view.interactive && due()) {
        view.line(
          `ingest phase=${p.phase} progress=${(p.fraction * 100).toFixed(1)}% lines=${p.lines} ` +
            `triples=${p.triples} rate=${rate(p)}/s eta=${eta(p)}`,
        );
      }
    },
    stop: () => view.stop(),
  };
}
