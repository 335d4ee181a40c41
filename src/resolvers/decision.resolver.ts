import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { ErrorCode, KgcError } from '../errors';
import {
  acceptPredictions,
  checkEdgeKey,
  EdgeKey,
  listDecisions,
  parseDecisionCursor,
  rejectPrediction,
  relationInGraph,
  textProblem,
  revertAcceptedPrediction,
  undoRejection,
} from '../graph';
import type { ModelScore } from '../graph';
import { servingProbability } from '../model';
import { AcceptedEdge } from '../schema/accepted-edge.type';
import { DecisionKind } from '../schema/decision-kind.enum';
import { DecisionPage } from '../schema/decision-page.type';
import { EdgeInput } from '../schema/edge.input';
import { Rejection } from '../schema/rejection.type';
import { Role } from '../schema/role';
import { checkIntRange } from './arguments';
import type { RequestContext } from './request-context';

export const MAX_ACCEPT_BATCH = 500;
const MAX_PAGE = 200;
const MAX_REASON_LENGTH = 2000;

/**
 * The serving model's score of `edge` now (never the client's), or null when it cannot score
 * it (no model, or an entity or relation it has not seen).
 */
function scoreNow(context: RequestContext, edge: EdgeKey): ModelScore | null {
  const model = context.model;
  if (!model) return null;
  const h = model.scorer.findEntity(edge.head);
  const r = model.scorer.findRelation(edge.relation);
  const t = model.scorer.findEntity(edge.tail);
  if (h === undefined || r === undefined || t === undefined) return null;
  const { logit } = model.scorer.score(h, r, t);
  // The tail direction: the edge as `missingLinks(head, relation)` would suggest it.
  return {
    modelVersion: model.version,
    logit,
    probability: servingProbability(model, r, 'tail', logit),
  };
}

/** A relation neither in the graph nor in the serving model is a typo, not a prediction. */
async function checkRelationKnown(context: RequestContext, relation: string, where: string) {
  if (context.model?.scorer.findRelation(relation) !== undefined) return;
  if (await relationInGraph(context.db, relation)) return;
  throw new KgcError(
    ErrorCode.UNKNOWN_RELATION,
    `Argument ${where}relation: no relation "${relation}" in the graph or the serving model; the \`relations\` query lists them.`,
  );
}

function callerName(context: RequestContext): string {
  // @Authorized(ADMIN) guarantees a caller; the fallback keeps the type honest.
  return context.caller?.name ?? 'anonymous';
}

@Resolver()
export class DecisionResolver {
  @Authorized(Role.ADMIN)
  @Mutation((_returns) => AcceptedEdge, {
    description:
      'Writes the edge into the graph with its provenance (re-scored by the serving model now); idempotent; clears a rejection of it',
  })
  async acceptPrediction(
    @Arg('head', (_type) => String) head: string,
    @Arg('relation', (_type) => String) relation: string,
    @Arg('tail', (_type) => String) tail: string,
    @Ctx() context: RequestContext,
  ): Promise<AcceptedEdge> {
    const [accepted] = await this.accept(context, [{ head, relation, tail }]);
    return accepted as AcceptedEdge;
  }

  @Authorized(Role.ADMIN)
  @Mutation((_returns) => [AcceptedEdge], {
    description: `acceptPrediction for up to ${MAX_ACCEPT_BATCH} edges in one transaction: all or nothing`,
  })
  async acceptPredictions(
    @Arg('items', (_type) => [EdgeInput]) items: EdgeInput[],
    @Ctx() context: RequestContext,
  ): Promise<AcceptedEdge[]> {
    if (items.length === 0 || items.length > MAX_ACCEPT_BATCH) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `Argument items must hold 1 to ${MAX_ACCEPT_BATCH} edges, got ${items.length}.`,
      );
    }
    return this.accept(context, items);
  }

  private async accept(context: RequestContext, items: EdgeKey[]): Promise<AcceptedEdge[]> {
    const where = (i: number) => (items.length > 1 ? `items[${i}].` : '');
    items.forEach((item, i) => checkEdgeKey(item, where(i)));
    for (const [i, item] of items.entries())
      await checkRelationKnown(context, item.relation, where(i));
    const requests = items.map((item) => ({
      head: item.head,
      relation: item.relation,
      tail: item.tail,
      score: scoreNow(context, item),
    }));
    const accepted = await acceptPredictions(context.db, requests, callerName(context));
    context.metrics?.countDecision('ACCEPT', accepted.length);
    // New edges: their new entities are folded in (or refreshed) in the background.
    context.foldIn?.notify(accepted.flatMap((edge) => [edge.head, edge.tail]));
    return accepted;
  }

  @Authorized(Role.ADMIN)
  @Mutation((_returns) => Rejection, {
    description: 'Records that this edge is wrong: it is never suggested again; idempotent',
  })
  async rejectPrediction(
    @Arg('head', (_type) => String) head: string,
    @Arg('relation', (_type) => String) relation: string,
    @Arg('tail', (_type) => String) tail: string,
    @Arg('reason', (_type) => String, { nullable: true }) reasonArg: string | null | undefined,
    @Ctx() context: RequestContext,
  ): Promise<Rejection> {
    const key = { head, relation, tail };
    const reason = reasonArg ?? null;
    checkEdgeKey(key);
    if (reason !== null && reason.length > MAX_REASON_LENGTH) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        `Argument reason is ${reason.length} characters long; the limit is ${MAX_REASON_LENGTH}.`,
      );
    }
    const problem = reason === null ? undefined : textProblem('reason', reason);
    if (problem) throw new KgcError(ErrorCode.BAD_USER_INPUT, `Argument ${problem}.`);
    await checkRelationKnown(context, relation, '');
    const rejection = await rejectPrediction(context.db, key, {
      by: callerName(context),
      reason,
      score: scoreNow(context, key),
    });
    context.metrics?.countDecision('REJECT');
    return rejection;
  }

  @Authorized(Role.ADMIN)
  @Mutation((_returns) => Rejection, {
    description: 'Lifts a rejection: the edge may be suggested again',
  })
  async undoRejection(
    @Arg('head', (_type) => String) head: string,
    @Arg('relation', (_type) => String) relation: string,
    @Arg('tail', (_type) => String) tail: string,
    @Ctx() context: RequestContext,
  ): Promise<Rejection> {
    const undone = await undoRejection(context.db, { head, relation, tail }, callerName(context));
    context.metrics?.countDecision('UNDO_REJECTION');
    return undone;
  }

  @Authorized(Role.ADMIN)
  @Mutation((_returns) => AcceptedEdge, {
    description:
      'Removes an edge that was accepted from a prediction; ingested edges are refused (EDGE_NOT_REVERTIBLE)',
  })
  async revertAcceptedPrediction(
    @Arg('head', (_type) => String) head: string,
    @Arg('relation', (_type) => String) relation: string,
    @Arg('tail', (_type) => String) tail: string,
    @Ctx() context: RequestContext,
  ): Promise<AcceptedEdge> {
    const reverted = await revertAcceptedPrediction(
      context.db,
      { head, relation, tail },
      callerName(context),
    );
    context.metrics?.countDecision('REVERT');
    context.foldIn?.notify([head, tail]);
    return reverted;
  }

  @Authorized(Role.ADMIN)
  @Query((_returns) => DecisionPage, {
    description: 'Every decision on predictions, newest first, with cursor pagination',
  })
  async decisions(
    @Arg('first', (_type) => Int, { defaultValue: 20, description: `1 to ${MAX_PAGE}` })
    first: number,
    @Arg('after', (_type) => String, { nullable: true, description: 'endCursor of the last page' })
    after: string | null | undefined,
    @Arg('kind', (_type) => DecisionKind, { nullable: true }) kind: DecisionKind | null | undefined,
    @Ctx() context: RequestContext,
  ): Promise<DecisionPage> {
    checkIntRange('first', first, 1, MAX_PAGE);
    const cursor = after == null ? undefined : parseDecisionCursor(after);
    if (after != null && !cursor) {
      throw new KgcError(
        ErrorCode.BAD_USER_INPUT,
        "Argument after is not a cursor from this API: pass a page's endCursor.",
      );
    }
    const page = await listDecisions(context.db, { first, after: cursor, kind: kind ?? undefined });
    return { ...page, items: page.items.map((d) => ({ ...d, kind: DecisionKind[d.kind] })) };
  }
}
