import { datasetDir, takeDataOption } from '../../datasets';

export interface BenchArgs {
  dataset: string;
  epochs: number;
  quick: boolean;
  /** Seconds per load step (the steady-rate and swap steps run longer). */
  seconds: number;
}

/**
 * `[--data <dir>] [--dataset <name|dir>] [--epochs N] [--seconds S] [--quick]`. A dataset name
 * (default FB15k-237) is a folder under --data (or KGC_DATASETS). --quick: a smoke test
 * (Kinship, 1 epoch, 3 s steps) unless the others are given.
 */
export function parseBenchArgs(allArgs: string[], defaults: { epochs: number; seconds: number }) {
  const { data, rest: argv } = takeDataOption(allArgs);
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
  const args: BenchArgs = {
    dataset: datasetDir(value('--dataset') ?? (quick ? 'Kinship' : 'FB15k-237'), data),
    epochs: count('--epochs') ?? (quick ? 1 : defaults.epochs),
    quick,
    seconds: count('--seconds') ?? (quick ? 3 : defaults.seconds),
  };
  return args;
}
