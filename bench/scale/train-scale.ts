/**
 * Training past the 1-N wall, per graph: the epoch time (extrapolated from timed batches of the
 * engine's own CLI, `neptune train --max-batches`) and the peak resident memory, scoring every
 * entity and with the sampled scoring `default` picks, against the memory floor of the issue
 * (parameters + Adam's two moments + the data and its index as loaded + one batch's buffers).
 *
 *   npx tsx bench/scale/train-scale.ts --graph <dir> [--graph <dir> ...] [--batches 200] [--full-batches 4]
 *
 * A graph folder holds train/valid/test.txt (bench/scale/generate.ts writes them; the shared
 * datasets too). Run it alone on the machine: the times are compared with each other.
 */

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describeMachine } from '../ingest/machine';

const NEPTUNE = path.join(__dirname, '../../engine/target/release/neptune');

interface Probe {
  msPerBatch: number;
  epochSeconds: number;
  batches: number;
  dataMiB: number;
  peakMiB: number;
  config: { d_e: number; d_r: number; batch_size: number; sampled_candidates: number };
  entities: number;
  relations: number;
}

function probe(graph: string, batches: number, sampled: number | undefined): Probe {
  const args = ['train', '--dataset', graph, '--max-batches', String(batches)];
  if (sampled !== undefined) args.push('--set', `sampled_candidates=${sampled}`);
  const run = spawnSync(NEPTUNE, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`neptune ${args.join(' ')} failed:\n${run.stderr}`);
  const text = `${run.stdout}\n${run.stderr}`;
  const grab = (re: RegExp) => {
    const m = re.exec(text);
    if (!m) throw new Error(`no ${re} in the output of neptune ${args.join(' ')}`);
    return m;
  };
  const timed = grab(/timed \d+ batches: ([\d.]+) ms\/batch -> ([\d.]+) s per epoch of (\d+)/);
  const loaded = grab(/loaded (\d+) entities, (\d+) relations/);
  return {
    msPerBatch: Number(timed[1]),
    epochSeconds: Number(timed[2]),
    batches: Number(timed[3]),
    dataMiB: Number(grab(/memory after loading[^:]*: rss ([\d.]+) MiB/)[1]),
    peakMiB: Number(grab(/memory after training: rss [\d.]+ MiB, peak ([\d.]+) MiB/)[1]),
    config: JSON.parse(grab(/^config: (.*)$/m)[1] as string) as Probe['config'],
    entities: Number(loaded[1]),
    relations: Number(loaded[2]),
  };
}

/** MiB of parameters + Adam's moments (3 copies of E, R and W) and one batch's large buffers. */
function floorMiB(p: Probe): number {
  const { d_e: d, d_r: dr, batch_size: b, sampled_candidates: k } = p.config;
  const n = p.entities;
  const params = n * d + 2 * p.relations * dr + dr * d * d;
  // Scored columns per batch: every entity, or the tails (at most ~4 per query) and the sample.
  const columns = k > 0 ? Math.min(n, k + 4 * b) : n;
  // Logits and their gradient (B x columns), the scored rows of E (columns x d) and their
  // gradient, E's full gradient when every entity is scored, the relation cores.
  const batch = 2 * b * columns + 2 * columns * d + (k > 0 ? 0 : n * d) + 2 * 64 * d * d;
  return (3 * params * 4 + batch * 4) / 2 ** 20 + p.dataMiB;
}

function main(): void {
  const argv = process.argv.slice(2);
  const graphs = argv.flatMap((a, i) => (argv[i - 1] === '--graph' ? [a] : []));
  const at = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const batches = at('--batches', 200);
  const fullBatches = at('--full-batches', 4);
  if (graphs.length === 0) throw new Error('give at least one --graph <dir>');
  console.log(
    '| graph | entities | scoring | ms/batch | s/epoch (batches) | peak RSS MiB | floor MiB | peak / floor |',
  );
  console.log('|---|---:|---|---:|---:|---:|---:|---:|');
  for (const graph of graphs) {
    const sized = probe(graph, batches, undefined);
    const k = sized.config.sampled_candidates;
    // The other way of scoring: every entity (few batches where that is slow), or the sample.
    const other = k > 0 ? probe(graph, fullBatches, 0) : probe(graph, batches, 4096);
    for (const p of k > 0 ? [sized, other] : [other, sized]) {
      const kk = p.config.sampled_candidates;
      const floor = floorMiB(p);
      console.log(
        `| ${path.basename(graph)} | ${p.entities.toLocaleString('en')} | ` +
          `${kk > 0 ? `tails + ${kk}` : 'every entity'}${p === sized ? ' (default)' : ''} | ` +
          `${p.msPerBatch.toFixed(1)} | ${p.epochSeconds.toFixed(0)} (${p.batches}) | ` +
          `${p.peakMiB.toFixed(0)} | ${floor.toFixed(0)} | ${(p.peakMiB / floor).toFixed(2)} |`,
      );
    }
  }
  console.log(`\nmachine: ${JSON.stringify(describeMachine())}`);
}

main();
