import type { BulkProgress } from '../../ingest/bulk';
import { every, ProgressDisplay, type ProgressReporter } from './progress-display';

const rate = (p: BulkProgress) => (p.seconds > 0 ? Math.round(p.triples / p.seconds) : 0);
const percent = (p: BulkProgress) => `${(p.fraction * 100).toFixed(1)}%`;

/**
 * `kgc ingest --bulk`: a bar while the input is validated and the import files are written, a
 * bar for neo4j-admin's import with its stage, and a line as each later step starts. Without a
 * terminal: a line per step and per import stage, and a progress line every 5 s.
 */
export function bulkIngestProgress(
  stream: NodeJS.WriteStream = process.stderr,
): ProgressReporter<BulkProgress> {
  const prepare = new ProgressDisplay(
    'prepare  [{bar}] {percentage}% | {lines} lines | {rate} triples/s | ETA {eta_formatted}',
    stream,
  );
  const load = new ProgressDisplay('import   [{bar}] {percentage}% | {stage}', stream);
  const due = every(5000);
  let last: BulkProgress | undefined;
  return {
    report(p) {
      const newPhase = p.phase !== last?.phase;
      const newStage = newPhase || p.stage !== last?.stage;
      last = p;
      if (newPhase) {
        prepare.stop();
        load.stop();
      }
      if (p.phase === 'prepare') {
        prepare.show(p.fraction, {
          lines: p.lines.toLocaleString('en'),
          rate: rate(p).toLocaleString('en'),
        });
        if (!prepare.interactive && due()) {
          prepare.line(
            `ingest --bulk phase=prepare progress=${percent(p)} lines=${p.lines} ` +
              `triples=${p.triples} rate=${rate(p)}/s`,
          );
        }
      } else if (p.stage !== undefined) {
        load.show(p.fraction, { stage: p.stage });
        if (!load.interactive && (newStage || due())) {
          load.line(`ingest --bulk phase=${p.phase} stage="${p.stage}" progress=${percent(p)}`);
        }
      } else if (newPhase) {
        load.line(`ingest --bulk phase=${p.phase} seconds=${p.seconds.toFixed(1)}`);
      }
    },
    stop: () => {
      prepare.stop();
      load.stop();
    },
  };
}
