import { ErrorCode, KgcError } from '../errors';
import { Database, edgeFactsBatch } from '../graph';
import type { EdgeFacts } from '../graph';
import { edgeRuleEvidence, servedRanks, servingEdgeProbability, WalkedQuestions } from '../model';
import type { RankQuery, ServingModel } from '../model';
import { checkId } from './arguments';
import type { ApiMetrics } from './api-metrics';
import { notInModel } from './not-in-model';

export const MAX_EDGES = 1000;

export interface EdgeArgs {
  head: string;
  relation: string;
  tail: string;
}

/**
 * One edge's answer. A number the model cannot give is the edge's error instead: GraphQL
 * answers that field null with the error at its path (index 1 is the edge's index).
 */
export interface EdgeAnswer extends EdgeArgs {
  logit: number | KgcError;
  headLogit: number | KgcError;
  probability: number | KgcError;
  rank: number | KgcError;
  exists: boolean;
  rejected: boolean;
  modelVersion: string;
}

/** Refuses an empty or overlong list and bad ids, naming the argument (`edges[3].head`). */
export function checkEdgeArgs(edges: readonly EdgeArgs[]): void {
  if (edges.length === 0 || edges.length > MAX_EDGES) {
    throw new KgcError(
      ErrorCode.BAD_USER_INPUT,
      `Argument edges must hold 1 to ${MAX_EDGES} edges, got ${edges.length}; split a longer list across requests.`,
    );
  }
  edges.forEach((edge, i) => {
    checkId(`edges[${i}].head`, edge.head);
    checkId(`edges[${i}].relation`, edge.relation);
    checkId(`edges[${i}].tail`, edge.tail);
  });
}

/** Why the model cannot score edge `i` (missingLinks' codes and wording), or its ids. */
function resolveEdge(
  model: ServingModel,
  edge: EdgeArgs,
  facts: EdgeFacts,
  i: number,
): KgcError | RankQuery {
  const at = `Argument edges[${i}]`;
  for (const end of ['head', 'tail'] as const) {
    const exists = end === 'head' ? facts.headExists : facts.tailExists;
    if (!exists) {
      return new KgcError(
        ErrorCode.ENTITY_NOT_FOUND,
        `${at}.${end}: no entity "${edge[end]}" in the graph.`,
      );
    }
  }
  const relation = model.scorer.findRelation(edge.relation);
  if (relation === undefined) {
    return new KgcError(
      ErrorCode.UNKNOWN_RELATION,
      facts.relationInGraph
        ? `${at}.relation: "${edge.relation}" is in the graph but not in the serving model (added after it was trained); the next retraining will include it.`
        : `${at}.relation: no relation "${edge.relation}" in the graph or the serving model; the \`relations\` query lists them.`,
    );
  }
  const ids: Partial<Record<'head' | 'tail', number>> = {};
  for (const end of ['head', 'tail'] as const) {
    ids[end] = model.scorer.findEntity(edge[end]);
    if (ids[end] === undefined) {
      return new KgcError(
        ErrorCode.ENTITY_NOT_IN_MODEL,
        notInModel(`${at}.${end}`, edge[end], model.foldInHeldBack?.has(edge[end])),
      );
    }
  }
  return { entity: ids.head as number, relation, tail: ids.tail as number };
}

/**
 * Answers a call's edges with one Neo4j read (entities, the (head, relation, ?) edges and
 * rejections of every edge) and one engine call on the worker threads for all ranks, all from
 * `model` (the request's). The rank leaves out what missingLinks leaves out (the head itself,
 * the graph's tails, the rejected ones), never the tail itself, so an edge not in the graph
 * ranks where missingLinks would list it. The logits are the served ones (the model's plus
 * the rules' evidence where the version combines them), the rank among served logits.
 */
export async function answerEdgeProbabilities(
  db: Database,
  model: ServingModel,
  edges: readonly EdgeArgs[],
  metrics?: ApiMetrics,
): Promise<EdgeAnswer[]> {
  const facts = await edgeFactsBatch(db, edges);
  const scored: { i: number; query: RankQuery; exclude: number[] }[] = [];
  const excludes = new Map<string, number[]>();
  const answers: EdgeAnswer[] = edges.map((edge, i) => {
    const known = facts[i] as EdgeFacts;
    const answer: EdgeAnswer = {
      head: edge.head,
      relation: edge.relation,
      tail: edge.tail,
      logit: 0,
      headLogit: 0,
      probability: 0,
      rank: 0,
      exists: known.exists,
      rejected: known.rejected.includes(edge.tail),
      modelVersion: model.version,
    };
    const query = resolveEdge(model, edge, known, i);
    if (query instanceof KgcError) {
      answer.logit = answer.headLogit = answer.probability = answer.rank = query;
      return answer;
    }
    // Edges of one head and relation leave out the same entities: one list, shared.
    const key = `${query.entity}\t${query.relation}`;
    let exclude = excludes.get(key);
    if (!exclude) {
      exclude = [query.entity];
      for (const id of [...known.existing, ...known.rejected]) {
        const index = model.scorer.findEntity(id);
        if (index !== undefined) exclude.push(index);
      }
      excludes.set(key, exclude);
    }
    scored.push({ i, query, exclude });
    return answer;
  });
  if (scored.length === 0) return answers;
  const started = process.hrtime.bigint();
  const tailQuestions = scored.map((s) => s.query);
  // Their ranks are not read: no exclusions to fetch for them.
  const headQuestions: RankQuery[] = tailQuestions.map((q) => ({
    entity: q.tail,
    relation: q.relation,
    direction: 'head',
    tail: q.entity,
  }));
  // Every question's rule walks once, in one batch on the engine's worker threads: the edge
  // calibrator hears them, and the served logits and ranks add them where the version combines
  // model and rules.
  const walked = model.walker ? new WalkedQuestions(model.walker) : undefined;
  await walked?.walkAll(
    [...tailQuestions, ...headQuestions].map((q) => ({
      entity: q.entity,
      relation: q.relation,
      direction: q.direction ?? 'tail',
    })),
  );
  const evidence = walked
    ? await edgeRuleEvidence(
        walked,
        tailQuestions.map((q) => q.entity),
        tailQuestions.map((q) => q.relation),
        tailQuestions.map((q) => q.tail),
      )
    : undefined;
  const { ranks, logits } = await servedRanks(
    model.scorer,
    model.combiner,
    [...tailQuestions, ...headQuestions],
    scored.map((s) => s.exclude),
    walked,
  );
  metrics?.observeScoring(2 * scored.length, Number(process.hrtime.bigint() - started) / 1e9);
  scored.forEach(({ i, query }, s) => {
    const answer = answers[i] as EdgeAnswer;
    const logit = logits[s] as number;
    const headLogit = logits[scored.length + s] as number;
    answer.logit = logit;
    answer.headLogit = headLogit;
    answer.probability = servingEdgeProbability(model, {
      head: query.entity,
      relation: query.relation,
      tail: query.tail,
      tailLogit: logit,
      headLogit,
      ...(evidence ? { rules: { tail: evidence.tail[s] ?? 0, head: evidence.head[s] ?? 0 } } : {}),
    });
    answer.rank = ranks[s] as number;
  });
  return answers;
}
