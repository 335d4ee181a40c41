import type { Database, EdgeFilter } from '../graph';
import { exportDenseGraph, splitTriples } from '../ingest';
import type { DenseGraph, SplitOptions } from '../ingest';
import { train } from '../model';
import type { EngineConfig, TrainOptions, TrainSummary } from '../model';

export interface GraphTrainingOptions extends TrainOptions {
  filter?: EdgeFilter;
  split: SplitOptions;
}

export interface GraphTrainingResult extends TrainSummary {
  triples: number;
  entities: number;
  relations: number;
}

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

/** Export the graph from Neo4j, split it deterministically, train a model on it. */
export async function trainFromGraph(
  db: Database,
  config: EngineConfig,
  options: GraphTrainingOptions,
): Promise<GraphTrainingResult> {
  const graph = await exportDenseGraph(db, options.filter);
  const split = splitTriples(graph, options.split);
  const summary = await train(
    {
      entities: graph.entities,
      relations: graph.relationNames,
      train: tripleIds(graph, split.train),
      valid: tripleIds(graph, split.valid),
      test: tripleIds(graph, split.test),
    },
    config,
    options,
  );
  return {
    ...summary,
    triples: graph.heads.length,
    entities: graph.entities.length,
    relations: graph.relationNames.length,
  };
}
