import path from 'node:path';
import { REPO_ROOT } from '../../../src/graph';

export interface BenchArgs {
  dataset: string;
  epochs: number;
  quick: boolean;
  /** Seconds per load step (the steady-rate and swap steps run longer). */
  seconds: number;
}

/**
 * `[--dataset <dir>] [--epochs N] [--seconds S] [--quick]`. --quick: a smoke test (Kinship,
 * 1 epoch, 3 s steps) unless the others are given.
 */
export function parseBenchArgs(argv: string[], defaults: { epochs: number; seconds: number }) {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value`);
    return v;
  };
  const count = (name: string): number | undefined => {
    const v = value(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer`);
    return n;
  };
  const known = new Set(['--dataset', '--epochs', '--seconds', '--quick']);
  for (const a of argv) {
    if (a.startsWith('--') && !known.has(a)) throw new Error(`unknown option ${a}`);
  }
  const quick = argv.includes('--quick');
  const datasets = path.join(REPO_ROOT, '..', 'shared', 'datasets');
  const args: BenchArgs = {
    dataset: path.resolve(
      value('--dataset') ?? path.join(datasets, quick ? 'Kinship' : 'FB15k-237'),
    ),
    epochs: count('--epochs') ?? (quick ? 1 : defaults.epochs),
    quick,
    seconds: count('--seconds') ?? (quick ? 3 : defaults.seconds),
  };
  return args;
}
