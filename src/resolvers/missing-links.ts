import { ErrorCode, KgcError } from '../errors';
import { knownAnswers, relationInGraph } from '../graph';
import { Direction } from '../schema/direction.enum';
import type { Prediction } from '../schema/prediction.type';
import { checkId, checkIntRange, servingModel } from './arguments';
import type { RequestContext } from './request-context';

export const MAX_K = 1000;

export interface MissingLinksArgs {
  entity: string;
  relation: string;
  k: number;
  direction: Direction;
  minProbability?: number | null;
  excludeConnected: boolean;
}

export function checkMissingLinksArgs(args: MissingLinksArgs, where = ''): void {
  checkId(`${where}entity`, args.entity);
  checkId(`${where}relation`, args.relation);
  checkIntRange(`${where}k`, args.k, 1, MAX_K);
  const p = args.minProbability;
  if (p !== undefined && p !== null && !(p >= 0 && p <= 1)) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      `Argument ${where}minProbability must be from 0 to 1, got ${p}.`,
    );
  }
}

/**
 * Scores (entity, relation) against every entity and returns the best k that are not edges of
 * the graph now, not rejected, not the entity itself (and, with excludeConnected, not linked
 * to it at all).
 */
export async function missingLinks(
  context: RequestContext,
  args: MissingLinksArgs,
): Promise<Prediction[]> {
  checkMissingLinksArgs(args);
  const model = servingModel(context);
  const { scorer } = model;
  const known = await knownAnswers(context.db, args.entity, args.relation, args.direction, {
    connected: args.excludeConnected,
  });
  if (!known.entityExists) {
    throw new KgcError(
      ErrorCode.ENTITY_NOT_FOUND,
      `Argument entity: no entity "${args.entity}" in the graph.`,
    );
  }
  const relationIndex = scorer.findRelation(args.relation);
  if (relationIndex === undefined) {
    const inGraph = await relationInGraph(context.db, args.relation);
    throw new KgcError(
      ErrorCode.UNKNOWN_RELATION,
      inGraph
        ? `Argument relation: "${args.relation}" is in the graph but not in the serving model (added after it was trained); the next retraining will include it.`
        : `Argument relation: no relation "${args.relation}" in the graph or the serving model; the \`relations\` query lists them.`,
    );
  }
  const entityIndex = scorer.entity(args.entity);
  const exclude = [entityIndex];
  for (const id of [...known.existing, ...known.rejected, ...known.connected]) {
    const index = scorer.findEntity(id);
    if (index !== undefined) exclude.push(index);
  }
  const top = scorer.topK(entityIndex, relationIndex, args.k, {
    exclude,
    direction: args.direction,
  });
  const minimum = args.minProbability ?? 0;
  return top
    .filter((row) => row.probability >= minimum)
    .map((row, i) => ({
      entity: { id: row.id },
      rank: i + 1,
      logit: row.logit,
      probability: row.probability,
      modelVersion: model.version,
    }));
}
