import type { ServingModel } from '../model';
import type { RequestContext } from './request-context';

/**
 * The request's model, or, when some of `ids` are new entities that can be folded in, the same
 * version with them folded in: the request waits for their fold-in (at most KGC_FOLD_IN_WAIT_MS).
 * Never another version: one request answers from one version (a swap meanwhile keeps `model`).
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
  await Promise.all(missing.map((id) => foldIn.ensure(id)));
  const now = foldIn.current();
  return now && now.version === model.version ? now : model;
}
