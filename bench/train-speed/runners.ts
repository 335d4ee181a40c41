import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
export const NEPTUNE_BIN = path.join(ROOT, 'engine', 'target', 'release', 'neptune');
/** The engine built without its `avx512` feature (see `AVX2_BUILD`). */
const NEPTUNE_AVX2_BIN = path.join(ROOT, 'engine', 'target', 'avx2', 'release', 'neptune');
export const AVX2_BUILD =
  'cd engine && cargo build --release -p neptune_core --no-default-features --features cli --target-dir target/avx2';

/**
 * The instructions measured: the machine's best, or AVX2 at most (an AVX2 machine's code and
 * floors on an AVX-512 one): our engine built without AVX-512 and OpenBLAS held to its Haswell
 * (AVX2) kernels for the peak and the peer.
 */
export type Simd = 'best' | 'avx2';
let simd: Simd = 'best';

export function measureSimd(chosen: Simd): void {
  if (chosen === 'avx2' && !fs.existsSync(NEPTUNE_AVX2_BIN))
    throw new Error(`--avx2 needs the AVX2 build of the engine: ${AVX2_BUILD}`);
  simd = chosen;
}

/** The `neptune` binary measured. */
export function neptuneBin(): string {
  return simd === 'avx2' ? NEPTUNE_AVX2_BIN : NEPTUNE_BIN;
}
const PEER = path.join(ROOT, 'bench', 'peer', 'neptune_torch.py');

export interface TimedRun {
  /** Seconds per full epoch (measured, or extrapolated from the timed batches). */
  epochSeconds: number;
  peakRssMiB: number;
  output: string;
}

/** Runs a command under GNU time for its peak RSS. */
function timed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): { output: string; rssMiB: number } {
  const result = spawnSync('/usr/bin/time', ['-f', 'KGC_MAXRSS_KB=%M', command, ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed:\n${output.slice(-2000)}`);
  const rss = /KGC_MAXRSS_KB=(\d+)/.exec(output);
  return { output, rssMiB: rss ? Number(rss[1]) / 1024 : NaN };
}

/** `neptune train` arguments for one epoch without validation. */
export function oursTrainArgs(dataset: string, preset: string, threads: number): string[] {
  const args = ['train', '--dataset', dataset, '--preset', preset, '--epochs', '1'];
  return [...args, '--eval-every', '0', '--threads', String(threads)];
}

/** The peer's environment: OpenBLAS at its best (its AVX2 best with `--avx2`), its tuning variables unset. */
export function peerEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  if (simd === 'avx2') env.OPENBLAS_CORETYPE = 'Haswell';
  return env;
}

/** Ours: the engine's own CLI, `--max-batches` timing (first batch excluded) or a full epoch. */
export function runOurs(
  dataset: string,
  preset: string,
  maxBatches: number | undefined,
  threads: number,
): TimedRun {
  const args = oursTrainArgs(dataset, preset, threads);
  if (maxBatches) args.push('--max-batches', String(maxBatches));
  const { output, rssMiB } = timed(neptuneBin(), args, process.env);
  const extrapolated = /-> ([\d.]+) s per epoch/.exec(output);
  const full = /epoch\s+1\s+loss\s+[\d.]+\s+([\d.]+)s/.exec(output);
  const seconds = Number((maxBatches ? extrapolated : full)?.[1]);
  return { epochSeconds: seconds, peakRssMiB: rssMiB, output };
}

/** The PyTorch peer: Debian's torch, OpenBLAS at its best (tuning variables unset). */
export function runPeer(
  dataset: string,
  preset: string,
  maxBatches: number | undefined,
  threads: number,
  extra: string[] = [],
): TimedRun {
  const env = peerEnv();
  const args = [
    PEER,
    '--dataset',
    dataset,
    '--preset',
    preset,
    '--epochs',
    '1',
    '--no-eval',
    '--threads',
    String(threads),
    ...extra,
  ];
  if (maxBatches) args.push('--max-batches', String(maxBatches));
  const { output, rssMiB } = timed('/usr/bin/python3', args, env);
  const epochLine = output.split('\n').find((line) => line.startsWith('{"epoch"'));
  const epoch = epochLine ? (JSON.parse(epochLine) as Record<string, number>) : {};
  const seconds = maxBatches ? epoch.extrapolatedEpochSeconds : epoch.epochSeconds;
  return { epochSeconds: Number(seconds), peakRssMiB: rssMiB, output };
}

/** Best of five timings of `op` after `setup` in the peer's torch, as `units / seconds / 1e9`. */
function bestOfFive(threads: number, setup: string, op: string, units: string): number {
  const script = [
    'import torch, time',
    `torch.set_num_threads(${threads})`,
    setup,
    'best = 0.0',
    'for _ in range(5):',
    `    t = time.perf_counter(); ${op}; best = max(best, ${units} / (time.perf_counter() - t) / 1e9)`,
    'print(best)',
  ].join('\n');
  const result = spawnSync('/usr/bin/python3', ['-c', script], {
    env: peerEnv(),
    encoding: 'utf8',
  });
  return Number(result.stdout.trim());
}

/**
 * Stops the bench when the peer's torch does not run on OpenBLAS: Debian links it to the
 * reference BLAS unless `libopenblas0-pthread` is installed, and then the sgemm "peak" (and
 * every floor computed from it) is a twentieth of the machine's.
 */
export function requireOpenBlas(): void {
  const script = [
    'import torch',
    'torch.mm(torch.ones(64, 64), torch.ones(64, 64))',
    "print('openblas' in open('/proc/self/maps').read())",
  ].join('\n');
  const result = spawnSync('/usr/bin/python3', ['-c', script], {
    env: peerEnv(),
    encoding: 'utf8',
  });
  if (result.stdout.trim() !== 'True') {
    throw new Error(
      "the peer's torch does not load OpenBLAS, so the machine's sgemm peak cannot be measured: " +
        'apt-get install python3-torch libopenblas0-pthread (bench/peer/README.md)',
    );
  }
}

/**
 * The best of `PROCESSES` fresh processes' measurements. One process's best of five has read
 * 46 and 85 GB/s of copy bandwidth an hour apart on the same idle machine (and 77-79 in five
 * processes between), so a single process can set the floor far below what the machine does;
 * the floor should be the most the machine showed.
 */
const PROCESSES = 3;
const bestOfProcesses = (measure: () => number) =>
  Math.max(...Array.from({ length: PROCESSES }, measure));

/** sgemm peak of the machine, measured with the peer's BLAS on large squares, in GFLOP/s. */
export function sgemmPeak(threads: number): number {
  const setup = 'n = 2048; a = torch.randn(n, n); b = torch.randn(n, n); torch.mm(a, b)';
  return bestOfProcesses(() => bestOfFive(threads, setup, 'torch.mm(a, b)', '2 * n ** 3'));
}

/** Copy bandwidth (bytes read + written per second, GB/s) of 256 MiB buffers, the peer's torch. */
export function copyBandwidth(threads: number): number {
  const setup = 'n = 1 << 26; a = torch.ones(n); b = torch.empty(n); b.copy_(a)';
  return bestOfProcesses(() => bestOfFive(threads, setup, 'b.copy_(a)', '8 * n'));
}

/** Milliseconds per batch the peer's BLAS takes for the products of one of our phases. */
export interface BlasProducts {
  /** A = R_U·W, dR = dA·Wᵀ, dW = R_Uᵀ·dA. */
  relationCores: number;
  /** logits = x2·Eᵀ, dx2 = dL·E, dE = dLᵀ·x2. */
  scoring: number;
}

/**
 * The peer's BLAS (OpenBLAS at its best) on the exact products of one training batch: where a
 * skinny product runs below the large-square sgemm peak in the best library too, the phase's
 * floor at that peak is out of reach for any GEMM, not only ours. `u` is rounded to the nearest
 * whole number of distinct relations. Best of five per product, summed.
 */
export function blasProducts(
  threads: number,
  s: { batch: number; entities: number; de: number; dr: number; distinct: number },
): BlasProducts {
  const [b, n, d, dr, u] = [s.batch, s.entities, s.de, s.dr, Math.max(1, Math.round(s.distinct))];
  const script = [
    'import torch, time',
    `torch.set_num_threads(${threads})`,
    `b, n, d, dr, u = ${b}, ${n}, ${d}, ${dr}, ${u}`,
    'r = lambda *shape: torch.rand(*shape) - 0.5',
    'x2, e, dl, ru, w, da = r(b, d), r(n, d), r(b, n), r(u, dr), r(dr, d * d), r(u, d * d)',
    'def best(f):',
    '    f()',
    '    times = []',
    '    for _ in range(5):',
    '        t = time.perf_counter(); f(); times.append(time.perf_counter() - t)',
    '    return min(times) * 1e3',
    'cores = best(lambda: ru @ w) + best(lambda: da @ w.t()) + best(lambda: ru.t() @ da)',
    'scoring = best(lambda: x2 @ e.t()) + best(lambda: dl @ e) + best(lambda: dl.t() @ x2)',
    'print(cores, scoring)',
  ].join('\n');
  const result = spawnSync('/usr/bin/python3', ['-c', script], {
    env: peerEnv(),
    encoding: 'utf8',
  });
  const [relationCores, scoring] = result.stdout.trim().split(' ').map(Number);
  return { relationCores: Number(relationCores), scoring: Number(scoring) };
}
