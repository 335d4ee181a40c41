import path from 'node:path';
import { EventLoopTurns } from '../event-loop-turns';
import { readTripleFile } from './calibration/triple-file';
import { writeCombiner } from './rules/combiner-file';
import { DEFAULT_COMBINER_FIT, describeCombiner, fitCombiner } from './rules/fit-combiner';
import { mineRules } from './rules/mine-rules';
import { writeRules } from './rules/rules-file';
import { writeVersionGraph } from './rules/version-graph';
import { Scorer } from './scorer';

/**
 * The retrain job's rules and combine steps for a model trained on a dataset folder (`kgc
 * train --dataset`): path rules mined from train.txt (rules.json), train.txt as the graph they
 * are walked in (graph.bin), and the combiner of model and rules chosen on valid.txt
 * (combiner.json). Run before calibration, which then fits on the served logits. Returns lines
 * for the user. `scorer`: the model in `modelDir`, where the caller has it loaded (calibration
 * after this step asks the same one: two loaded copies stacked in one process).
 */
export async function combineDatasetModel(
  modelDir: string,
  datasetDir: string,
  scorer?: Scorer,
): Promise<string[]> {
  const model = (scorer ?? (await Scorer.loadAsync(modelDir))).engineModel;
  const entities = new Map(model.entities.map((name, i) => [name, i]));
  const relations = new Map(model.relations.map((name, i) => [name, i]));
  const vocabulary = {
    entity: (id: string) => entities.get(id),
    relation: (name: string) => relations.get(name),
  };
  const [train, valid, test] = ['train.txt', 'valid.txt', 'test.txt'].map(
    (file) => readTripleFile(path.join(datasetDir, file), vocabulary).ids,
  ) as [Uint32Array, Uint32Array, Uint32Array];
  const column = (offset: number) =>
    Int32Array.from({ length: train.length / 3 }, (_, i) => train[3 * i + offset] as number);
  const graph = {
    entities: model.entities,
    relationNames: model.relations,
    heads: column(0),
    relations: column(1),
    tails: column(2),
  };
  const turns = new EventLoopTurns();
  const rules = await mineRules(graph, {}, turns);
  writeRules(modelDir, rules);
  const count = Object.values(rules.rules).reduce((sum, list) => sum + list.length, 0);
  const lines = [
    `Rules: mined ${count} path rule(s) from train.txt in ${rules.seconds.toFixed(1)} s; ${await writeVersionGraph(graph, modelDir)}`,
  ];
  if (valid.length === 0) return [...lines, 'Rules: valid.txt is empty, the model answers alone.'];
  // The rules above are the train split's, as the fit mines them.
  const combiner = await fitCombiner(
    model,
    { train, valid, test },
    DEFAULT_COMBINER_FIT,
    turns,
    rules,
  );
  writeCombiner(modelDir, combiner);
  return [
    ...lines,
    `Rules as a second opinion: ${describeCombiner(combiner).replace(/^rules as a second opinion: /, '')}`,
  ];
}
