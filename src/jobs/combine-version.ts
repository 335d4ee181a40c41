import type { EventLoopTurns } from '../event-loop-turns';
import { Scorer } from '../model';
import type { TrainingArrays } from '../model';
import { writeCombiner } from '../model/rules/combiner-file';
import { DEFAULT_COMBINER_FIT, describeCombiner, fitCombiner } from '../model/rules/fit-combiner';
import { toModelIds } from './model-ids';

/**
 * The retrain job's combine step: chooses how the version's answers add its path rules to the
 * model (combiner.json in `dir`, fit-combiner.ts) on its validation edges. Returns a line for
 * the job's log. `scorer`: the version's model where the job has it loaded (its calibrate step
 * asks the same one).
 */
export async function combineVersion(
  dir: string,
  data: TrainingArrays,
  turns: EventLoopTurns,
  scorer?: Scorer,
): Promise<string> {
  const loaded = scorer ?? (await Scorer.loadAsync(dir));
  const model = loaded.engineModel;
  const toModel = toModelIds(loaded, data);
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
