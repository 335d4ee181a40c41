import type { Direction } from '../../direction';
import type { ServingModel } from '../serving-model';
import { servingProbability } from '../serving-probability';
import { sortRows } from './suggestions-file';
import type { RelationSuggestions, SuggestionRow } from './suggestions-file';

/** Edges never suggested: `heads[i]`-relation->`tails[i]` in model entity indices. */
export interface ExcludedEdges {
  heads: Uint32Array;
  tails: Uint32Array;
}

/** The entities in the relation's range (tail) or domain (head), ascending; undefined: all. */
function typedEnds(model: ServingModel, relation: number, end: Direction): Uint32Array | undefined {
  const types = model.types;
  if (!types) return undefined;
  const n = model.scorer.entities.length;
  const out: number[] = [];
  for (let e = 0; e < n; e++) if (types.isConsistent(relation, end, e)) out.push(e);
  return Uint32Array.from(out);
}

/**
 * One relation's best `n` suggestions in each direction, with calibrated probabilities. Tail
 * suggestions ask every entity of the relation's domain for tails in its range; head ones ask
 * every entity of the range for heads in the domain (without types: every entity both ways).
 */
export async function suggestRelation(
  model: ServingModel,
  relation: number,
  excluded: ExcludedEdges,
  n: number,
  signal?: AbortSignal,
): Promise<RelationSuggestions[]> {
  const name = model.scorer.relations[relation] as string;
  const domain = typedEnds(model, relation, 'head');
  const range = typedEnds(model, relation, 'tail');
  const out: RelationSuggestions[] = [];
  for (const direction of ['tail', 'head'] as const) {
    const tail = direction === 'tail';
    const found = await model.scorer.suggestAsync(
      relation,
      direction,
      n,
      {
        queries: tail ? domain : range,
        candidates: tail ? range : domain,
        exclude: tail
          ? { queries: excluded.heads, candidates: excluded.tails }
          : { queries: excluded.tails, candidates: excluded.heads },
      },
      signal,
    );
    const rows: SuggestionRow[] = [];
    for (let i = 0; i < found.logits.length; i++) {
      const query = found.queries[i] as number;
      const candidate = found.candidates[i] as number;
      const logit = found.logits[i] as number;
      rows.push([
        tail ? query : candidate,
        tail ? candidate : query,
        logit,
        servingProbability(model, relation, direction, logit),
      ]);
    }
    out.push({ relation: name, direction, typed: model.types !== undefined, rows: sortRows(rows) });
  }
  return out;
}
