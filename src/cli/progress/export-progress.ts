import type { ExportProgress } from '../../export';
import { every, ProgressDisplay, type ProgressReporter } from './progress-display';

const UNIT = { stream: 'edges read', write: 'triples written' } as const;

/** `kgc export`: a bar per phase (stream, write) on a terminal, a log line every 5 s otherwise. */
export function exportProgress(
  stream: NodeJS.WriteStream = process.stderr,
): ProgressReporter<ExportProgress> {
  const view = new ProgressDisplay(
    '{phase} [{bar}] {percentage}% | {done} {unit} | ETA {eta_formatted}',
    stream,
  );
  const due = every(5000);
  let phase: ExportProgress['phase'] | undefined;
  return {
    report(p) {
      if (phase !== undefined && p.phase !== phase) view.stop();
      phase = p.phase;
      const fraction = p.total > 0 ? p.done / p.total : 1;
      view.show(fraction, {
        phase: p.phase.padEnd(6),
        done: p.done.toLocaleString('en'),
        unit: UNIT[p.phase],
      });
      if (!view.interactive && due()) {
        const rate = p.seconds > 0 ? Math.round(p.done / p.seconds) : 0;
        view.line(
          `export phase=${p.phase} progress=${(Math.min(1, fraction) * 100).toFixed(1)}% ` +
            `done=${p.done} total=${p.total} rate=${rate}/s`,
        );
      }
    },
    stop: () => view.stop(),
  };
}
