import type { ServingModel } from '../model';
import type { RequestContext } from './request-context';

/** New entities one request waits for at most; the others answer ENTITY_NOT_IN_MODEL. */
export const FOLD_INS_PER_REQUEST = 32;

/**
 * The request's model, or, when some of `ids` are new entities that can be folded in, the same
 * version with them folded in: the request waits for their fold-in (at most KGC_FOLD_IN_WAIT_MS).
 * Never another version: one request answers from one version (a swap meanwhile keeps `model`).
 * At most FOLD_INS_PER_REQUEST of them are waited for: a request naming thousands of new ids
 * cannot queue thousands of reads and fits.
 */
export async function modelKnowing(
  context: RequestContext,
  model: ServingModel,
  ids: readonly string[],
): Promise<ServingModel> {
  const foldIn = context.foldIn;
  if (!foldIn) return model;
  const missing = [...new Set(ids)].filter((id) => model.scorer.findEntity(id) === undefined);
  if (missing.length === 0) return model;
  await Promise.all(missing.slice(0, FOLD_INS_PER_REQUEST).map((id) => foldIn.ensure(id)));
  const now = foldIn.current();
  return now && now.version === model.version ? now : model;
}
