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
}

/**
 * The size of a training set. For a folder, entities and relations are counted over
 * train/valid/test.txt (the vocabularies the engine builds) and triples over train.txt; lines
 * are not validated here (the engine does that when it loads them).
 */
export async function graphSize(data: TrainingData): Promise<GraphSize> {
  if (!('dir' in data)) {
    return {
      entities: data.entities.length,
      relations: data.relations.length,
      trainTriples: Math.floor(data.train.length / 3),
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
      if (split === 'train') trainTriples++;
    }
  }
  return { entities: entities.size, relations: relations.size, trainTriples };
}
