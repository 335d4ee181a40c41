import type { EventLoopTurns } from '../event-loop-turns';
import { nativeEngine } from '../model/native-engine';
import type { TrainingArrays } from '../model';
import { writeCombiner } from '../model/rules/combiner-file';
import { DEFAULT_COMBINER_FIT, describeCombiner, fitCombiner } from '../model/rules/fit-combiner';
import { toModelIds } from './model-ids';

/**
 * The retrain job's combine step: chooses how the version's answers add its path rules to the
 * model (combiner.json in `dir`, fit-combiner.ts) on its validation edges. Returns a line for
 * the job's log.
 */
export async function combineVersion(
  dir: string,
  data: TrainingArrays,
  turns: EventLoopTurns,
): Promise<string> {
  const model = await nativeEngine().loadModel(dir, 0);
  const entities = new Map(model.entities.map((name, i) => [name, i]));
  const relations = new Map(model.relations.map((name, i) => [name, i]));
  const toModel = toModelIds(
    { findEntity: (id) => entities.get(id), findRelation: (name) => relations.get(name) },
    data,
  );
  const splits = {
    train: toModel(data.train),
    valid: toModel(data.valid),
    test: toModel(data.test),
  };
  if (splits.valid.length === 0)
    return 'rules as a second opinion: no validation edges, the model answers alone';
  const combiner = await fitCombiner(model, splits, DEFAULT_COMBINER_FIT, turns);
  writeCombiner(dir, combiner);
  return describeCombiner(combiner);
}
