import fs from 'node:fs';
import path from 'node:path';

export interface Shape {
  entities: number;
  /** Base relations (before reverses). */
  relations: number;
  /** Unique (h, r) training pairs after adding reversed triples. */
  pairs: number;
  batches: number;
  /** Validation triples (each is two evaluation queries: tail and head). */
  validTriples: number;
  /** Expected distinct relations in a shuffled batch of `batch` pairs. */
  distinctRelationsPerBatch: number;
}

/**
 * Counts what the FLOP model needs from a dataset folder: entities over all splits, and the
 * unique (h, r) pairs of train plus reversed triples (reverse relation r + n_rel, or r itself).
 */
export function datasetShape(dir: string, sameRelation: boolean, batch = 128): Shape {
  const entities = new Set<string>();
  const relations = new Map<string, number>();
  const pairs = new Set<string>();
  let validTriples = 0;
  for (const split of ['train', 'valid', 'test']) {
    for (const line of fs.readFileSync(path.join(dir, `${split}.txt`), 'utf8').split('\n')) {
      const [h, r, t] = line.split('\t');
      if (!h || !r || !t) continue;
      entities.add(h).add(t);
      if (!relations.has(r)) relations.set(r, relations.size);
      if (split === 'valid') validTriples++;
      if (split !== 'train') continue;
      const id = relations.get(r) as number;
      pairs.add(`${h}\t${id}`);
      pairs.add(`${t}\t${sameRelation ? id : `${id}~`}`);
    }
  }
  const perRelation = new Map<string, number>();
  for (const pair of pairs) {
    const relation = pair.slice(pair.indexOf('\t') + 1);
    perRelation.set(relation, (perRelation.get(relation) ?? 0) + 1);
  }
  // E[distinct] = sum over relations of P(at least one of its pairs in a batch), sampling without replacement.
  const p = pairs.size;
  let distinct = 0;
  for (const count of perRelation.values()) {
    let none = 1;
    for (let i = 0; i < batch; i++) none *= Math.max(0, 1 - count / (p - i));
    distinct += 1 - none;
  }
  return {
    entities: entities.size,
    relations: relations.size,
    pairs: p,
    batches: Math.floor(p / batch),
    validTriples,
    distinctRelationsPerBatch: distinct,
  };
}

/**
 * FLOPs of one training epoch (forward + backward = 3x forward for each product):
 * core product U x d_r x d_e^2, per-example x @ A (B x d_e^2), scoring B x d_e x N.
 * `perExampleCore` counts the core product per example (B instead of U), as the reference does.
 */
export function epochFlops(
  shape: Shape,
  de: number,
  dr: number,
  perExampleCore: boolean,
  batch = 128,
): number {
  const u = perExampleCore ? batch : shape.distinctRelationsPerBatch;
  const forward = 2 * (u * dr * de * de + batch * de * de + batch * de * shape.entities);
  return 3 * forward * shape.batches;
}

/**
 * The floor of evaluating every validation query: its scoring product alone (each of the
 * 2 x valid queries scored against every entity, 2 N d_e FLOP) at the machine's sgemm peak.
 */
export function evalFloorSeconds(shape: Shape, de: number, peakGflops: number): number {
  return (2 * 2 * shape.validTriples * shape.entities * de) / (peakGflops * 1e9);
}
