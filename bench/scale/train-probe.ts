/**
 * Timed batches of the engine's own CLI (`neptune train --max-batches`, release build): the
 * epoch time they extrapolate to and the peak resident memory, and the memory floor of issue 42
 * (parameters + Adam's two moments + the data and its index as loaded + one batch's buffers).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const NEPTUNE = path.join(__dirname, '../../engine/target/release/neptune');

export interface Probe {
  msPerBatch: number;
  epochSeconds: number;
  batches: number;
  dataMiB: number;
  peakMiB: number;
  config: { d_e: number; d_r: number; batch_size: number; sampled_candidates: number };
  entities: number;
  relations: number;
}

/**
 * `neptune train --max-batches` on `graph` (the default's scoring, or `sampled` candidates: 0 is
 * every entity), the kept model saved to `save` when given.
 */
export function probe(
  graph: string,
  batches: number,
  sampled: number | undefined,
  save?: string,
): Probe {
  const args = ['train', '--dataset', graph, '--max-batches', String(batches)];
  if (sampled !== undefined) args.push('--set', `sampled_candidates=${sampled}`);
  if (save !== undefined) args.push('--save', save);
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
export function floorMiB(p: Probe): number {
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
