import type { TrainingProgress } from '../model';

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--';
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}

/**
 * Training progress for people: a one-line bar redrawn in place on a terminal, plain log lines
 * (one per epoch and per validation) otherwise. Writes to stderr so stdout stays parseable.
 */
export function trainingProgressReporter(
  totalEpochs: number,
  stream: NodeJS.WriteStream = process.stderr,
): (event: TrainingProgress) => void {
  const tty = stream.isTTY === true;
  const started = Date.now();
  let epochsDone = 0;
  return (event) => {
    if (event.kind === 'batch' && tty && event.batch !== undefined && event.batches) {
      const fraction = (epochsDone + event.batch / event.batches) / totalEpochs;
      const width = 24;
      const filled = Math.round(fraction * width);
      const elapsed = (Date.now() - started) / 1000;
      const eta = fraction > 0 ? elapsed / fraction - elapsed : NaN;
      stream.write(
        `\r\x1b[2Kepoch ${event.epoch}/${totalEpochs} [${'='.repeat(filled)}${' '.repeat(width - filled)}] ` +
          `batch ${event.batch}/${event.batches} loss ${event.loss?.toFixed(5)} ` +
          `${Math.round(event.examplesPerSecond ?? 0)} ex/s ETA ${duration(eta)}`,
      );
    } else if (event.kind === 'epoch') {
      epochsDone = event.epoch;
      if (!tty) {
        stream.write(
          `epoch=${event.epoch}/${event.epochs} loss=${event.loss?.toFixed(6)} ` +
            `seconds=${event.seconds?.toFixed(2)} examples_per_s=${Math.round(event.examplesPerSecond ?? 0)}\n`,
        );
      }
    } else if (event.kind === 'validation' && event.metrics) {
      const m = event.metrics.overall;
      stream.write(
        `${tty ? '\r\x1b[2K' : ''}validation epoch=${event.epoch} mrr=${m.mrr.toFixed(4)} ` +
          `hits1=${m.hits1.toFixed(4)} hits10=${m.hits10.toFixed(4)} best_mrr=${event.bestMrr?.toFixed(4)}` +
          `${event.improved ? ' (best)' : ''}\n`,
      );
    }
  };
}
