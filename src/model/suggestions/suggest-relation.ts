import type { Direction } from '../../direction';
import type { Native } from '../native-engine';
import type { ServingModel } from '../serving-model';
import { servingProbability } from '../serving-probability';
import type { SuggestionExclusions } from './excluded-pairs';
import { servedTopPairs } from './served-top-pairs';
import type { SuggestionColumns, SuggestionListInfo } from './suggestion-types';

/** One relation and direction's computed suggestions, most probable first. */
export interface ComputedSuggestions extends SuggestionListInfo {
  columns: SuggestionColumns;
}

/** The entities in the relation's range (tail) or domain (head), ascending; undefined: all. */
function typedEnds(model: ServingModel, relation: number, end: Direction): Uint32Array | undefined {
  const types = model.types;
  if (!types) return undefined;
  const n = model.scorer.entities.length;
  let count = 0;
  const out = new Uint32Array(n);
  for (let e = 0; e < n; e++) if (types.isConsistent(relation, end, e)) out[count++] = e;
  return out.slice(0, count);
}

/**
 * The engine's rows (best logit first) as columns, with calibrated probabilities, ordered most
 * probable first; equal probabilities (isotonic calibration has plateaus) by logit, then head
 * and tail index, so every reader pages the same order.
 */
function columnsOf(
  model: ServingModel,
  relation: number,
  direction: Direction,
  found: Native.Suggestions,
): SuggestionColumns {
  const n = found.logits.length;
  const tail = direction === 'tail';
  const heads = tail ? found.queries : found.candidates;
  const tails = tail ? found.candidates : found.queries;
  const p = Float64Array.from(found.logits, (logit) =>
    servingProbability(model, relation, direction, logit),
  );
  const l = found.logits;
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort(
    (a, b) =>
      (p[b] as number) - (p[a] as number) ||
      (l[b] as number) - (l[a] as number) ||
      (heads[a] as number) - (heads[b] as number) ||
      (tails[a] as number) - (tails[b] as number),
  );
  return {
    heads: Uint32Array.from(order, (i) => heads[i] as number),
    tails: Uint32Array.from(order, (i) => tails[i] as number),
    logits: Float32Array.from(order, (i) => l[i] as number),
    probabilities: Float64Array.from(order, (i) => p[i] as number),
  };
}

/**
 * One relation's best `n` suggestions in each direction by the served logit (the model's, plus
 * its rules' evidence where the version's combiner adds it), with calibrated probabilities.
 * Tail suggestions ask every entity of the relation's domain for tails in its range; head ones
 * ask every entity of the range for heads in the domain (without types: every entity both
 * ways). `exclude` is the job's excluded edges (`suggestionExclusions`).
 */
export async function suggestRelation(
  model: ServingModel,
  relation: number,
  exclude: SuggestionExclusions,
  n: number,
  signal?: AbortSignal,
): Promise<ComputedSuggestions[]> {
  const name = model.scorer.relations[relation] as string;
  const domain = typedEnds(model, relation, 'head');
  const range = typedEnds(model, relation, 'tail');
  const out: ComputedSuggestions[] = [];
  for (const direction of ['tail', 'head'] as const) {
    const tail = direction === 'tail';
    const scope = { queries: tail ? domain : range, candidates: tail ? range : domain };
    const byModel = await model.scorer.suggestAsync(
      relation,
      direction,
      n,
      { ...scope, exclude: exclude.engine },
      signal,
    );
    const found = model.combiner
      ? await servedTopPairs(
          model.scorer,
          model.combiner,
          relation,
          direction,
          byModel,
          scope,
          exclude.pairs,
          n,
          signal,
        )
      : byModel;
    out.push({
      relation: name,
      direction,
      typed: model.types !== undefined,
      columns: columnsOf(model, relation, direction, found),
    });
  }
  return out;
}
