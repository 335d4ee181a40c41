import { every, ProgressDisplay, type ProgressReporter } from './progress-display';

export interface SuggestProgress {
  done: number;
  total: number;
  relation: string;
  seconds: number;
}

/** `kgc suggest`: a bar over the relations on a terminal, a log line every 5 s otherwise. */
export function suggestProgress(
  stream: NodeJS.WriteStream = process.stderr,
): ProgressReporter<SuggestProgress> {
  const view = new ProgressDisplay(
    'suggest [{bar}] {percentage}% | {done}/{total} relations | {relation} | ETA {eta_formatted}',
    stream,
  );
  const due = every(5000);
  return {
    report(p) {
      view.show(p.total > 0 ? p.done / p.total : 1, {
        done: p.done,
        total: p.total,
        relation: p.relation,
      });
      if (!view.interactive && (due() || p.done === p.total)) {
        view.line(
          `suggest relations=${p.done}/${p.total} last=${JSON.stringify(p.relation)} seconds=${p.seconds.toFixed(1)}`,
        );
      }
    },
    stop: () => view.stop(),
  };
}
