import fs from 'node:fs';
import path from 'node:path';
import type { MiningGraph } from '../../src/model/rules';
import type { TrainingArrays } from '../../src/model';

/** Entity and relation ids by name, shared by the splits of one dataset. */
export class Vocabulary {
  readonly entities = new Map<string, number>();
  readonly relations = new Map<string, number>();

  entity(name: string): number {
    return idOf(this.entities, name);
  }

  relation(name: string): number {
    return idOf(this.relations, name);
  }
}

function idOf(map: Map<string, number>, name: string): number {
  let id = map.get(name);
  if (id === undefined) {
    id = map.size;
    map.set(name, id);
  }
  return id;
}

/** A split as id columns. */
export interface TripleColumns {
  heads: Int32Array;
  relations: Int32Array;
  tails: Int32Array;
}

/** One tab-separated triples file (head, relation, tail) as id columns. */
export function readTriples(file: string, vocab: Vocabulary): TripleColumns {
  const rows = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.split('\t'))
    .filter((parts) => parts.length >= 3);
  const columns = {
    heads: new Int32Array(rows.length),
    relations: new Int32Array(rows.length),
    tails: new Int32Array(rows.length),
  };
  rows.forEach(([h, r, t], i) => {
    columns.heads[i] = vocab.entity(h as string);
    columns.relations[i] = vocab.relation(r as string);
    columns.tails[i] = vocab.entity(t as string);
  });
  return columns;
}

/** The dataset's train.txt as the rule miner's input (the graph a version is trained from). */
export function trainGraph(
  datasetDir: string,
  vocab = new Vocabulary(),
): MiningGraph & { entities: string[] } {
  const train = readTriples(path.join(datasetDir, 'train.txt'), vocab);
  return {
    entities: [...vocab.entities.keys()],
    relationNames: [...vocab.relations.keys()],
    ...train,
  };
}

/** The dataset's three splits as flat [h, r, t, ...] ids over one vocabulary (a job's arrays). */
export function datasetArrays(datasetDir: string): TrainingArrays {
  const vocab = new Vocabulary();
  const flat = (split: string) => {
    const c = readTriples(path.join(datasetDir, `${split}.txt`), vocab);
    const out = new Uint32Array(3 * c.heads.length);
    c.heads.forEach((h, i) => out.set([h, c.relations[i] as number, c.tails[i] as number], 3 * i));
    return out;
  };
  const [train, valid, test] = [flat('train'), flat('valid'), flat('test')];
  return {
    entities: [...vocab.entities.keys()],
    relations: [...vocab.relations.keys()],
    train,
    valid,
    test,
  };
}
