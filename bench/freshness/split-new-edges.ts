import fs from 'node:fs';
import path from 'node:path';

export type Triples = [string, string, string][];

function readTriples(file: string): Triples {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.split('\t').map((s) => s.trim()) as [string, string, string]);
}

/** train.txt, valid.txt and test.txt of a dataset folder. */
export function readSplits(dir: string): { train: Triples; valid: Triples; test: Triples } {
  const read = (name: string) => readTriples(path.join(dir, `${name}.txt`));
  return { train: read('train'), valid: read('valid'), test: read('test') };
}

/** mulberry32: a small seeded generator, so every run holds out the same edges. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded `share` of `train` held out as the "new" edges; the rest kept, order preserved. */
export function heldOutSplit(
  train: Triples,
  share: number,
  seed: number,
): { kept: Triples; held: Triples } {
  if (!(share > 0 && share < 1)) throw new Error('--new-share must be between 0 and 1');
  const random = seeded(seed);
  const kept: Triples = [];
  const held: Triples = [];
  for (const triple of train) (random() < share ? held : kept).push(triple);
  return { kept, held };
}
