/**
 * GPU training speed: epochs per second of the engine on the GPU against the engine on the CPU
 * and against the PyTorch peer on the same GPU, side by side in one run.
 *
 *   KGC_GPU=1 npm run setup   # the engine with its GPU backend
 *   npx tsx bench/gpu-speed/gpu-speed.ts [--data <dir>] [--datasets FB15k-237,WN18RR]
 *       [--seconds 60] [--threads 0] [--sampled-candidates 0] [--out bench/gpu-speed/results]
 *
 * Each run trains the dataset's reference preset for `--seconds` (its time limit): an epoch's time is the median
 * of the epochs after the first (which also compiles pipelines and grows buffers), or, when fewer
 * than two epochs fit, extrapolated from its batch events (wall time between the first and the
 * last reported batch, the first batches excluded). Without a hardware GPU the
 * engine's GPU numbers come from the first adapter it finds, Mesa's software lavapipe on a
 * machine without a GPU: the table then says so, and they are not GPU speeds.
 * `--sampled-candidates N` times sampled steps (each batch scored against its tails and N
 * sampled entities) on both engines; the peer scores every entity, so it is not run then.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nativeEngine, Native } from '../../src/model/native-engine';
import { datasetDir, takeDataOption } from '../datasets';
import { describeMachine } from '../train-speed/machine';
import { runPeer } from '../train-speed/runners';

const PRESETS: Record<string, string> = { 'FB15k-237': 'fb15k-237', WN18RR: 'wn18rr' };
/** Batches left out at the start of each timed run (the first compiles the pipelines). */
const WARMUP_BATCHES = 1;

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string) : fallback;
}

interface EngineTiming {
  device: string;
  epochSeconds: number;
  /** What the time is from: `n epochs` or `n batches`. */
  timed: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Trains `preset` on `dir` for about `seconds` on `device` and times its batches. */
async function timeEngine(
  dir: string,
  preset: string,
  device: Native.TrainingDevice,
  seconds: number,
  threads: number,
  sampledCandidates = 0,
): Promise<EngineTiming> {
  const engine = nativeEngine();
  const config = {
    ...engine.presetConfig(preset),
    epochs: 100_000,
    evalEvery: 0,
    threads,
    sampledCandidates,
  };
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-gpu-speed-'));
  const marks: { batch: number; at: number }[] = [];
  const epochs: number[] = [];
  let batchesPerEpoch = 0;
  let result: Native.TrainResult;
  try {
    result = await engine.train(
      dir,
      config,
      out,
      null,
      { timeLimitSeconds: seconds, device },
      (event) => {
        if (event.kind === 'epoch' && event.seconds !== undefined) epochs.push(event.seconds);
        if (event.kind !== 'batch' || event.batch === undefined || epochs.length > 0) return;
        batchesPerEpoch = event.batches ?? 0;
        if (event.batch > WARMUP_BATCHES) marks.push({ batch: event.batch, at: Date.now() });
      },
    );
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  const name = result.device;
  if (epochs.length >= 2) {
    return {
      device: name,
      epochSeconds: median(epochs.slice(1)),
      timed: `${epochs.length - 1} epochs`,
    };
  }
  const first = marks[0];
  const last = marks.at(-1);
  if (!first || !last || last.batch === first.batch) {
    throw new Error(`${device}: too few batches in ${seconds} s to time; raise --seconds`);
  }
  const perBatch = (last.at - first.at) / 1000 / (last.batch - first.batch);
  return {
    device: name,
    epochSeconds: perBatch * batchesPerEpoch,
    timed: `${last.batch - first.batch} batches`,
  };
}

/** The device `auto` picks: a hardware GPU, or the CPU when there is none (or no GPU backend). */
async function hasHardwareGpu(dir: string, threads: number): Promise<boolean> {
  const probe = await timeEngine(dir, 'fb15k-237', 'auto', 5, threads).catch(() => undefined);
  return probe !== undefined && !probe.device.startsWith('cpu');
}

async function main() {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const names = option(rest, 'datasets', 'FB15k-237,WN18RR').split(',');
  const seconds = Number(option(rest, 'seconds', '60'));
  const threads = Number(option(rest, 'threads', '0'));
  const outDir = option(rest, 'out', path.join(__dirname, 'results'));
  const sampled = Number(option(rest, 'sampled-candidates', '0'));
  if (!Number.isInteger(sampled) || sampled < 0) {
    throw new Error(`--sampled-candidates must be a whole number >= 0, got ${sampled}`);
  }
  const machine = describeMachine();
  const rows = [];
  const hardware = await hasHardwareGpu(datasetDir(names[0] as string, data), threads);
  for (const name of names) {
    const dir = datasetDir(name, data);
    const preset = PRESETS[name] ?? 'default';
    const cpu = await timeEngine(dir, preset, 'cpu', seconds, threads, sampled);
    const gpu = await timeEngine(dir, preset, 'gpu', seconds, threads, sampled);
    // The peer on the same GPU (CUDA), timed over as many batches; not run without a GPU, nor
    // against sampled steps (it scores every entity).
    const peer =
      hardware && sampled === 0
        ? runPeer(dir, preset, 200, threads || os.cpus().length, ['--device', 'cuda'])
        : undefined;
    const epoch = (t: EngineTiming) => t.epochSeconds;
    rows.push({
      dataset: name,
      preset,
      sampledCandidates: sampled,
      cpuDevice: cpu.device,
      gpuDevice: gpu.device,
      cpuEpochSeconds: epoch(cpu),
      gpuEpochSeconds: epoch(gpu),
      gpuEpochsPerSecond: 1 / epoch(gpu),
      gpuOverCpu: epoch(cpu) / epoch(gpu),
      peerGpuEpochSeconds: peer?.epochSeconds ?? null,
      gpuOverPeer: peer ? peer.epochSeconds / epoch(gpu) : null,
      timed: { cpu: cpu.timed, gpu: gpu.timed },
    });
  }
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores; load ${machine.loadAverage}`);
  if (sampled > 0) console.log(`sampled steps: each batch's tails and ${sampled} sampled entities`);
  if (!hardware) {
    console.log(
      'No hardware GPU here: the GPU column is the software Vulkan device (lavapipe, the GPU ' +
        'kernels run on the CPU), not a GPU speed; the peer on the GPU is not run.',
    );
  }
  console.log(
    '| dataset | GPU device | GPU s/epoch | GPU epochs/s | CPU engine s/epoch | GPU speed-up over CPU | peer on GPU s/epoch | speed-up over peer |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const peer = r.peerGpuEpochSeconds === null ? 'not run' : r.peerGpuEpochSeconds.toFixed(1);
    const overPeer = r.gpuOverPeer === null ? '-' : `${r.gpuOverPeer.toFixed(2)}x`;
    console.log(
      `| ${r.dataset} | ${r.gpuDevice} | ${r.gpuEpochSeconds.toFixed(1)} | ${r.gpuEpochsPerSecond.toPrecision(3)} | ` +
        `${r.cpuEpochSeconds.toFixed(1)} | ${r.gpuOverCpu.toPrecision(3)}x | ${peer} | ${overPeer} |`,
    );
  }
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `gpu-speed-${machine.date.slice(0, 16).replace(':', '')}.json`);
  fs.writeFileSync(file, `${JSON.stringify({ machine, hardwareGpu: hardware, rows }, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
