/**
 * Where a recorded run would have stopped with another patience. Training is deterministic for
 * a seed, so a run with more patience has the shorter run's validation curve as its prefix:
 * replaying the engine's early stopping (`engine/core/src/early_stopping.rs`: patience, then
 * the trend test) on the recorded curve gives the stop, and the best validation MRR kept, of
 * any smaller patience.
 *
 *   npx tsx bench/quality/patience-replay.ts --patience 5 [--graphs A,B] [--mode default]
 */
import fs from 'node:fs';
import path from 'node:path';
import { option } from './cli-option';

interface Run {
  graph: string;
  mode: string;
  validMrr: number;
  epochs: number;
  config: { patience: number };
  curve: [number, number][];
  finishedAt: string;
}

/** True when the least-squares slope of `ys` exceeds twice its standard error. */
function risingBeyondNoise(ys: number[]): boolean {
  const n = ys.length;
  if (n < 3) return false;
  const xMean = (n - 1) / 2;
  const yMean = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  ys.forEach((y, i) => {
    sxx += (i - xMean) ** 2;
    sxy += (i - xMean) * (y - yMean);
  });
  const slope = sxy / sxx;
  const residuals = ys.reduce((sum, y, i) => sum + (y - yMean - slope * (i - xMean)) ** 2, 0);
  const stderr = Math.sqrt(residuals / (n - 2) / sxx);
  return slope > 2 * stderr;
}

/** The epoch the run stops at with `patience`, and the best validation MRR and its epoch. */
function replay(
  curve: [number, number][],
  patience: number,
): { stop: number; best: number; bestEpoch: number } {
  const history: number[] = [];
  let best = -Infinity;
  let bestEpoch = 0;
  let since = 0;
  for (const [epoch, mrr] of curve) {
    history.push(mrr);
    if (mrr > best) {
      best = mrr;
      bestEpoch = epoch;
      since = 0;
    } else {
      since++;
    }
    if (patience > 0 && since >= patience) {
      const window = history.slice(history.length - Math.max(since, 3));
      if (!risingBeyondNoise(window)) return { stop: epoch, best, bestEpoch };
    }
  }
  return { stop: curve.at(-1)?.[0] ?? 0, best, bestEpoch };
}

function main(): void {
  const argv = process.argv.slice(2);
  const patience = Number(option(argv, 'patience') ?? '5');
  const graphs = option(argv, 'graphs')?.split(',');
  const mode = option(argv, 'mode') ?? 'default';
  const runs = fs
    .readFileSync(path.join(__dirname, 'family-results.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Run)
    .filter((r) => r.mode === mode && (!graphs || graphs.includes(r.graph)) && r.curve);
  console.log(
    `| graph | run (finished) | patience | epochs | best valid | with patience ${patience}: stop epoch | best valid | gain |`,
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const r of runs) {
    const replayed = replay(r.curve, patience);
    console.log(
      `| ${r.graph} | ${r.finishedAt.slice(0, 16)} | ${r.config.patience} | ${r.epochs} | ` +
        `${r.validMrr.toFixed(4)} | ${replayed.stop} | ${replayed.best.toFixed(4)} | ` +
        `${(Math.round((r.validMrr - replayed.best) * 1e4) / 1e4 + 0).toFixed(4)} |`,
    );
  }
}

main();
