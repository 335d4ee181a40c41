/**
 * What sampled training costs in quality where scoring every entity is affordable: the same
 * `kgc train --dataset <graph> --time-budget <b>` with the default preset, once scoring every
 * entity and once with `--sampled-candidates <k>`, one after the other on a quiet machine.
 * Prints validation and test MRR, epochs and seconds of each, and the difference (issue 42:
 * at most .01 MRR at equal time).
 *
 *   npx tsx bench/scale/sampled-quality.ts --data <datasets> --dataset FB15k-237 --budget 10m [--sample 4096]
 */

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { datasetsRoot, takeDataOption } from '../datasets';
import { describeMachine } from '../ingest/machine';

interface TrainSummary {
  /** Validation MRR of the kept model. */
  mrr: number;
  epochs: number;
  seconds: number;
  epochSeconds: number;
}

interface Run extends TrainSummary {
  testMrr: number;
}

const lastJson = <T>(stdout: string) => JSON.parse(stdout.trim().split('\n').pop() as string) as T;

function option(argv: string[], name: string, fallback?: string): string {
  const at = argv.indexOf(name);
  const value = at >= 0 ? argv[at + 1] : fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
}

function kgc(args: string[]): string {
  const result = spawnSync(process.execPath, ['bin/kgc.js', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`kgc ${args.join(' ')} failed`);
  return result.stdout;
}

/** Trains, then evaluates the kept model on the test split once. */
function run(dataset: string, budget: string, extra: string[]): Run {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-sampled-quality-')), 'model');
  try {
    const trained = lastJson<TrainSummary>(
      kgc([
        'train',
        '--dataset',
        dataset,
        '--time-budget',
        budget,
        '--json',
        '--out',
        out,
        ...extra,
      ]),
    );
    const test = lastJson<{ mrr: number }>(
      kgc(['evaluate', '--model', out, '--dataset', dataset, '--split', 'test', '--json']),
    );
    return { ...trained, testMrr: test.mrr };
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

function main(): void {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const name = option(rest, '--dataset');
  const budget = option(rest, '--budget', '10m');
  const sample = option(rest, '--sample', '4096');
  const dataset = path.join(datasetsRoot(data), name);
  const machine = describeMachine();
  const full = run(dataset, budget, ['--sampled-candidates', '0']);
  const sampled = run(dataset, budget, ['--sampled-candidates', sample]);
  const row = (label: string, s: Run) =>
    `| ${label} | ${s.mrr.toFixed(4)} | ${s.testMrr.toFixed(4)} | ${s.epochs} | ` +
    `${s.epochSeconds.toFixed(1)} | ${s.seconds.toFixed(0)} |`;
  console.log(`\n${name}, default preset, --time-budget ${budget}\n`);
  console.log('| scoring | valid MRR | test MRR | epochs | s/epoch | s |');
  console.log('|---|---:|---:|---:|---:|---:|');
  console.log(row('every entity', full));
  console.log(row(`tails + ${sample} sampled`, sampled));
  console.log(
    `\nsampled - every entity: valid ${(sampled.mrr - full.mrr).toFixed(4)}, ` +
      `test ${(sampled.testMrr - full.testMrr).toFixed(4)}`,
  );
  console.log(`machine: ${JSON.stringify(machine)}`);
}

main();
