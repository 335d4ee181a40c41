import type { Database, EdgeFilter } from '../graph';
import { exportDenseGraph, splitTriples } from '../ingest';
import type { DenseGraph, SplitOptions } from '../ingest';
import { graphSize, resolveTrainingConfig, train } from '../model';
import type {
  EngineConfig,
  TrainingArrays,
  TrainingOverrides,
  TrainOptions,
  TrainSummary,
} from '../model';

/** A preset and overrides, resolved once the graph's size is known (see `resolveTrainingConfig`). */
export interface TrainingRequest {
  preset: string;
  overrides?: TrainingOverrides;
}

export interface GraphTrainingOptions extends TrainOptions {
  filter?: EdgeFilter;
  split: SplitOptions;
  /** Called with the engine config actually used, before training starts. */
  onResolvedConfig?: (config: EngineConfig) => void;
}

export interface GraphTrainingResult extends TrainSummary {
  triples: number;
  entities: number;
  relations: number;
}

/** Flat `[h, r, t, ...]` ids of the chosen triples. */
export function tripleIds(graph: DenseGraph, indexes: Int32Array): Uint32Array {
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
  request: TrainingRequest,
  options: GraphTrainingOptions,
): Promise<GraphTrainingResult> {
  const graph = await exportDenseGraph(db, options.filter);
  const split = splitTriples(graph, options.split);
  const data: TrainingArrays = {
    entities: graph.entities,
    relations: graph.relationNames,
    train: tripleIds(graph, split.train),
    valid: tripleIds(graph, split.valid),
    test: tripleIds(graph, split.test),
  };
  const config = resolveTrainingConfig(request.preset, request.overrides, await graphSize(data));
  options.onResolvedConfig?.(config);
  const summary = await train(data, config, options);
  return {
    ...summary,
    triples: graph.heads.length,
    entities: graph.entities.length,
    relations: graph.relationNames.length,
  };
}
