import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { ErrorCode, KgcError } from '../errors';
import type { TrainingData } from './training-data';

/** What the `default` preset is sized by (see the engine's `graph_sizing`). */
export interface GraphSize {
  entities: number;
  /** Base relations (before reverses). */
  relations: number;
  trainTriples: number;
  /**
   * Training queries of one epoch: the unique (head, relation) pairs of train and reversed
   * train, a reversed pair under its own relation id.
   */
  queries: number;
  /** `exp` of the entropy of the queries' relation ids (how many relations a batch meets). */
  effectiveRelations: number;
}

/** Counts unique training queries, `pair` identifying one (entity, relation id). */
class QueryCounter {
  private readonly seen = new Set<string | number>();
  private readonly perRelation = new Map<string | number, number>();

  count(relation: string | number, pair: string | number): void {
    if (this.seen.has(pair)) return;
    this.seen.add(pair);
    this.perRelation.set(relation, (this.perRelation.get(relation) ?? 0) + 1);
  }

  get queries(): number {
    return this.seen.size;
  }

  get effectiveRelations(): number {
    let entropy = 0;
    for (const count of this.perRelation.values()) {
      const share = count / this.seen.size;
      entropy -= share * Math.log(share);
    }
    return Math.exp(entropy);
  }
}

/**
 * The size of a training set. For a folder, entities and relations are counted over
 * train/valid/test.txt (the vocabularies the engine builds) and triples over train.txt; lines
 * are not validated here (the engine does that when it loads them).
 */
export async function graphSize(data: TrainingData): Promise<GraphSize> {
  const counter = new QueryCounter();
  if (!('dir' in data)) {
    // Numeric keys: relation id (reversed ones after the base ones) x entities + entity.
    const [n, base] = [data.entities.length, data.relations.length];
    const id = (i: number) => data.train[i] ?? 0; // always in range: i + 2 < length
    for (let i = 0; i + 2 < data.train.length; i += 3) {
      const [head, relation, tail] = [id(i), id(i + 1), id(i + 2)];
      counter.count(relation, relation * n + head);
      counter.count(relation + base, (relation + base) * n + tail);
    }
    return {
      entities: data.entities.length,
      relations: data.relations.length,
      trainTriples: Math.floor(data.train.length / 3),
      queries: counter.queries,
      effectiveRelations: counter.effectiveRelations,
    };
  }
  const entities = new Set<string>();
  const relations = new Set<string>();
  let trainTriples = 0;
  for (const split of ['train', 'valid', 'test']) {
    const file = path.join(data.dir, `${split}.txt`);
    if (!fs.existsSync(file)) {
      throw new KgcError(ErrorCode.FILE_NOT_FOUND, `${file} does not exist.`);
    }
    const lines = readline.createInterface({
      input: fs.createReadStream(file),
      crlfDelay: Infinity,
    });
    for await (const line of lines) {
      const [head, relation, tail] = line.split('\t');
      if (head === undefined || relation === undefined || tail === undefined) continue;
      entities.add(head);
      entities.add(tail);
      relations.add(relation);
      if (split === 'train') {
        trainTriples++;
        const reverse = `${relation}\u0000reverse`;
        counter.count(relation, `${relation}\u0000${head}`);
        counter.count(reverse, `${reverse}\u0000${tail}`);
      }
    }
  }
  return {
    entities: entities.size,
    relations: relations.size,
    trainTriples,
    queries: counter.queries,
    effectiveRelations: counter.effectiveRelations,
  };
}
