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

import path from 'node:path';
import { describeMachine } from '../ingest/machine';
import { floorMiB, probe } from './train-probe';

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
