import type { TrainingProgress } from '../../model';
import { ProgressDisplay, type ProgressReporter } from './progress-display';

const BAR =
  'epoch {epoch}/{epochs} [{bar}] batch {batch}/{batches} loss {loss} {rate} ex/s ETA {eta_formatted}';

/**
 * Training progress for people: a bar over every batch of every epoch on a terminal, and a line
 * per validation; without a terminal (or `plain`), a line per epoch and per validation, each
 * after `prefix`.
 */
export function trainingProgress(
  totalEpochs: number,
  options: { prefix?: string; plain?: boolean; stream?: NodeJS.WriteStream } = {},
): ProgressReporter<TrainingProgress> {
  const view = new ProgressDisplay(BAR, options.stream, { plain: options.plain });
  const prefix = options.prefix ?? '';
  let epochsDone = 0;
  return {
    report(event) {
      if (event.kind === 'batch' && event.batch !== undefined && event.batches) {
        view.show((epochsDone + event.batch / event.batches) / totalEpochs, {
          epoch: event.epoch,
          epochs: totalEpochs,
          batch: event.batch,
          batches: event.batches,
          loss: event.loss?.toFixed(5) ?? '',
          rate: Math.round(event.examplesPerSecond ?? 0),
        });
      } else if (event.kind === 'epoch') {
        epochsDone = event.epoch;
        if (!view.interactive) {
          view.line(
            `${prefix}epoch=${event.epoch}/${event.epochs} loss=${event.loss?.toFixed(6)} ` +
              `seconds=${event.seconds?.toFixed(2)} examples_per_s=${Math.round(event.examplesPerSecond ?? 0)}`,
          );
        }
      } else if (event.kind === 'validation' && event.metrics) {
        const m = event.metrics.overall;
        view.line(
          `${prefix}validation epoch=${event.epoch} mrr=${m.mrr.toFixed(4)} ` +
            `hits1=${m.hits1.toFixed(4)} hits10=${m.hits10.toFixed(4)} best_mrr=${event.bestMrr?.toFixed(4)}` +
            `${event.improved ? ' (best)' : ''}`,
        );
      }
    },
    stop: () => view.stop(),
  };
}
