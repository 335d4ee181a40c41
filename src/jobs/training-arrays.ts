import type { DenseGraph, SplitIndexes } from '../export';
import type { TrainingArrays } from '../model';

/** Flat `[h, r, t, ...]` ids of the chosen triples. */
function tripleIds(graph: DenseGraph, indexes: Int32Array): Uint32Array {
  const ids = new Uint32Array(indexes.length * 3);
  indexes.forEach((i, k) => {
    ids[3 * k] = graph.heads[i] as number;
    ids[3 * k + 1] = graph.relations[i] as number;
    ids[3 * k + 2] = graph.tails[i] as number;
  });
  return ids;
}

/** The engine's input for an exported graph and its split. */
export function trainingArrays(graph: DenseGraph, split: SplitIndexes): TrainingArrays {
  return {
    entities: graph.entities,
    relations: graph.relationNames,
    train: tripleIds(graph, split.train),
    valid: tripleIds(graph, split.valid),
    test: tripleIds(graph, split.test),
  };
}
