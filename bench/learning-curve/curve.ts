/**
 * Validation-MRR learning curves of our engine and the PyTorch peer, same data, same reference
 * settings, evaluated after every epoch: the evidence that the engine (and every speed lever)
 * trains the same model.
 *
 *   npx tsx bench/learning-curve/curve.ts [--data <dir>] --dataset FB15k-237 [--epochs 5]
 *       [--threads 1] [--cpu 1] [--table-only]
 *
 * The dataset is a folder under --data (or KGC_DATASETS): see bench/datasets.ts.
 *
 * Runs the peer, then ours (each pinned to `--cpu` with taskset when given), writing
 * `results/peer-<dataset>.jsonl` and `results/ours-<dataset>.log`, then prints the table.
 * `--table-only` prints the table from the files already there.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { datasetDir, takeDataOption } from '../datasets';
import { NEPTUNE_BIN, peerEnv } from '../train-speed/runners';

const ROOT = path.resolve(__dirname, '..', '..');
const RESULTS = path.join(__dirname, 'results');
const PRESET: Record<string, string> = { 'FB15k-237': 'fb15k-237', WN18RR: 'wn18rr' };

interface Point {
  /** Mean training loss of the epoch. */
  loss?: number;
  mrr: number;
  hits10: number;
  epochSeconds?: number;
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? (process.argv[i + 1] as string) : fallback;
}

function run(command: string, args: string[], outFile: string, cpu: string): void {
  // The peer runs with OpenBLAS at its best; harmless for ours.
  const env = peerEnv();
  const [cmd, argv] = cpu ? ['taskset', ['-c', cpu, command, ...args]] : [command, args];
  const out = fs.openSync(outFile, 'w');
  const result = spawnSync(cmd, argv, { env, stdio: ['ignore', out, 'inherit'] });
  fs.closeSync(out);
  if (result.status !== 0) throw new Error(`${command} failed with status ${result.status}`);
}

function linesOf(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : [];
}

/** Epoch -> point, from the peer's JSON lines. */
function peerCurve(file: string): Map<number, Point> {
  const curve = new Map<number, Point>();
  for (const line of linesOf(file)) {
    if (!line.startsWith('{"epoch"')) continue;
    const e = JSON.parse(line) as {
      epoch: number;
      loss: number;
      epochSeconds: number;
      valid?: { mrr: number; hits10: number };
    };
    if (e.valid) curve.set(e.epoch, { ...e.valid, loss: e.loss, epochSeconds: e.epochSeconds });
  }
  return curve;
}

/** Epoch -> point, from `neptune train` output (`epoch N ... Xs` and `valid @N: MRR ...`). */
function oursCurve(file: string): Map<number, Point> {
  const curve = new Map<number, Point>();
  const seconds = new Map<number, number>();
  const losses = new Map<number, number>();
  for (const line of linesOf(file)) {
    const epoch = /^epoch\s+(\d+)\s+loss\s+([\d.e-]+)\s+([\d.]+)s/.exec(line);
    if (epoch) {
      losses.set(Number(epoch[1]), Number(epoch[2]));
      seconds.set(Number(epoch[1]), Number(epoch[3]));
    }
    const valid = /valid @(\d+): MRR ([\d.]+)\s+H@1 [\d.]+\s+H@10 ([\d.]+)/.exec(line);
    if (valid) {
      const n = Number(valid[1]);
      curve.set(n, {
        mrr: Number(valid[2]),
        hits10: Number(valid[3]),
        loss: losses.get(n),
        epochSeconds: seconds.get(n),
      });
    }
  }
  return curve;
}

function main(): void {
  const dataset = option('dataset', 'FB15k-237');
  const preset = PRESET[dataset];
  if (!preset) throw new Error(`--dataset must be one of ${Object.keys(PRESET).join(', ')}`);
  const epochs = option('epochs', '5');
  const threads = option('threads', '1');
  const cpu = option('cpu', '');
  const peerFile = path.join(RESULTS, `peer-${dataset}.jsonl`);
  const oursFile = path.join(RESULTS, `ours-${dataset}.log`);
  if (!process.argv.includes('--table-only')) {
    const dir = datasetDir(dataset, takeDataOption(process.argv.slice(2)).data);
    fs.mkdirSync(RESULTS, { recursive: true });
    const common = ['--epochs', epochs, '--threads', threads];
    run(
      '/usr/bin/python3',
      [path.join(ROOT, 'bench/peer/neptune_torch.py'), '--dataset', dir, '--preset', preset]
        .concat(common)
        .concat(['--eval-every', '1', '--no-test']),
      peerFile,
      cpu,
    );
    run(
      NEPTUNE_BIN,
      ['train', '--dataset', dir, '--preset', preset].concat(common).concat(['--eval-every', '1']),
      oursFile,
      cpu,
    );
  }
  const peer = peerCurve(peerFile);
  const ours = oursCurve(oursFile);
  console.log(`${dataset}, preset ${preset}, validation (filtered, both directions)\n`);
  console.log(
    '| epoch | ours loss | peer loss | ours MRR | peer MRR | ours − peer | ours H@10 | peer H@10 | ours s/epoch | peer s/epoch |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const f = (v: number | undefined, digits = 4) => (v === undefined ? '–' : v.toFixed(digits));
  const all = [...new Set([...peer.keys(), ...ours.keys()])].sort((a, b) => a - b);
  for (const epoch of all) {
    const [o, p] = [ours.get(epoch), peer.get(epoch)];
    const diff = o && p ? f(o.mrr - p.mrr) : '–';
    console.log(
      `| ${epoch} | ${f(o?.loss, 6)} | ${f(p?.loss, 6)} | ${f(o?.mrr)} | ${f(p?.mrr)} | ${diff} | ${f(o?.hits10)} | ${f(p?.hits10)} | ${f(o?.epochSeconds, 1)} | ${f(p?.epochSeconds, 1)} |`,
    );
  }
}

main();
