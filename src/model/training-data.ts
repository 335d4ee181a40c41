import type { Native } from './native-engine';

/**
 * What a model trains on: a folder holding train.txt, valid.txt and test.txt
 * (`head<TAB>relation<TAB>tail`), or vocabularies with flat id triples `[h, r, t, h, r, t, ...]`
 * (as the graph export produces them).
 */
export type TrainingData = { dir: string } | TrainingArrays;

export interface TrainingArrays {
  entities: string[];
  relations: string[];
  train: Uint32Array | Int32Array;
  valid: Uint32Array | Int32Array;
  test: Uint32Array | Int32Array;
}

/** Int32Array columns share their buffer with the Uint32Array view: ids are never negative. */
function asUint32(ids: Uint32Array | Int32Array): Uint32Array {
  return ids instanceof Uint32Array ? ids : new Uint32Array(ids.buffer, ids.byteOffset, ids.length);
}

export function toNativeData(data: TrainingData): string | Native.DatasetArrays {
  if ('dir' in data) return data.dir;
  return {
    entities: data.entities,
    relations: data.relations,
    train: asUint32(data.train),
    valid: asUint32(data.valid),
    test: asUint32(data.test),
  };
}
