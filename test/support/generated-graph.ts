import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Triple = [string, string, string];

/**
 * A small graph with known structure: `n` entities in four classes (entity i is in class i mod 4).
 * `is_a` links each entity to its class, `similar_to` links it to the class members 4, 8, 12 and 16 ids
 * away. A held-out `is_a` triple is implied by the entity's `similar_to` neighbours, so a model
 * that learns the structure ranks the true class first for tail queries.
 */
export function classGraph(n: number): Triple[] {
  const isA: Triple[] = [];
  const similar: Triple[] = [];
  for (let i = 0; i < n; i++) {
    isA.push([`e${i}`, 'is_a', `class${i % 4}`]);
    for (const step of [4, 8, 12, 16]) similar.push([`e${i}`, 'similar_to', `e${(i + step) % n}`]);
  }
  return [...isA, ...similar];
}

/** Deterministic split: every `k`-th triple to valid, the next one to test. */
export function splitTriples(triples: Triple[], k = 10) {
  const train: Triple[] = [];
  const valid: Triple[] = [];
  const test: Triple[] = [];
  triples.forEach((t, i) => (i % k === 0 ? valid : i % k === 1 ? test : train).push(t));
  return { train, valid, test };
}

/** Writes train/valid/test.txt into a new temp folder and returns it. */
export function writeDatasetDir(triples: Triple[], k = 10): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-dataset-'));
  const split = splitTriples(triples, k);
  for (const name of ['train', 'valid', 'test'] as const) {
    fs.writeFileSync(
      path.join(dir, `${name}.txt`),
      split[name].map((t) => t.join('\t')).join('\n') + '\n',
    );
  }
  return dir;
}
