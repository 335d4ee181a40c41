import { datasetDir, takeDataOption } from '../../datasets';

/** `default`: bench/api's own path; `fresh`: a user's first minute after a fresh start. */
export type BenchProtocol = 'default' | 'fresh';

export interface BenchArgs {
  dataset: string;
  protocol: BenchProtocol;
  /** `--kgc <file>`: the `kgc` entry point the fresh protocol runs (another build, to compare). */
  kgc: string | undefined;
  epochs: number;
  quick: boolean;
  /** Seconds per load step (the steady-rate and swap steps run longer). */
  seconds: number;
}

/**
 * `[--data <dir>] [--dataset <name|dir>] [--epochs N] [--seconds S] [--quick] [--protocol fresh
 * [--kgc <bin/kgc.js of another build>]]`.
 * A dataset name (default FB15k-237) is a folder under --data (or KGC_DATASETS). --quick: a smoke
 * test (Kinship, 1 epoch, 3 s steps) unless the others are given. `--protocol fresh` has its
 * own fixed phases (fresh-protocol.ts): --seconds does not apply, --epochs defaults to 1.
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
  const known = new Set(['--dataset', '--epochs', '--seconds', '--quick', '--protocol', '--kgc']);
  for (const a of argv) {
    if (a.startsWith('--') && !known.has(a)) throw new Error(`unknown option ${a}`);
  }
  const quick = argv.includes('--quick');
  const protocol = value('--protocol') ?? 'default';
  if (protocol !== 'default' && protocol !== 'fresh') {
    throw new Error(`--protocol must be default or fresh, got ${protocol}`);
  }
  const args: BenchArgs = {
    dataset: datasetDir(value('--dataset') ?? (quick ? 'Kinship' : 'FB15k-237'), data),
    protocol,
    kgc: value('--kgc'),
    epochs: count('--epochs') ?? (quick || protocol === 'fresh' ? 1 : defaults.epochs),
    quick,
    seconds: count('--seconds') ?? (quick ? 3 : defaults.seconds),
  };
  return args;
}
