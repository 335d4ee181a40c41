import { ErrorCode, KgcError } from '../errors';
import { Database, knownAnswersBatch, relationInGraph } from '../graph';
import type { KnownAnswers } from '../graph';
import { Direction } from '../schema/direction.enum';
import type { Prediction } from '../schema/prediction.type';
import { checkId, checkIntRange } from './arguments';
import type { ServingModel } from '../model';
import type { ApiMetrics } from './api-metrics';

export const MAX_K = 1000;

export interface MissingLinksArgs {
  entity: string;
  relation: string;
  k: number;
  direction: Direction;
  minProbability?: number | null;
  excludeConnected: boolean;
}

/** One query and the model that answers it (the one its request started with). */
export interface MissingLinksQuery {
  args: MissingLinksArgs;
  model: ServingModel;
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

/** Why this query cannot be answered (a KgcError to return), or its entity and relation ids. */
async function resolveIds(
  db: Database,
  { args, model }: MissingLinksQuery,
  known: KnownAnswers,
): Promise<KgcError | { entity: number; relation: number }> {
  if (!known.entityExists) {
    return new KgcError(
      ErrorCode.ENTITY_NOT_FOUND,
      `Argument entity: no entity "${args.entity}" in the graph.`,
    );
  }
  const relation = model.scorer.findRelation(args.relation);
  if (relation === undefined) {
    const inGraph = await relationInGraph(db, args.relation);
    return new KgcError(
      ErrorCode.UNKNOWN_RELATION,
      inGraph
        ? `Argument relation: "${args.relation}" is in the graph but not in the serving model (added after it was trained); the next retraining will include it.`
        : `Argument relation: no relation "${args.relation}" in the graph or the serving model; the \`relations\` query lists them.`,
    );
  }
  const entity = model.scorer.findEntity(args.entity);
  if (entity === undefined) {
    return new KgcError(
      ErrorCode.ENTITY_NOT_IN_MODEL,
      `Argument entity: "${args.entity}" is in the graph but not in the serving model (added after it was trained); the next retraining will include it.`,
    );
  }
  return { entity, relation };
}

/**
 * Answers many missingLinks queries with one Neo4j read (their known edges, rejections and,
 * where asked, neighbours) and one engine call per serving model: each query scores its
 * (entity, relation) against every entity and keeps the best k that are not edges of the graph
 * now, not rejected, not the entity itself (nor linked to it, with excludeConnected). A query
 * that cannot be answered gets its error in its place; the others are unaffected.
 */
export async function answerMissingLinks(
  db: Database,
  queries: readonly MissingLinksQuery[],
  metrics?: ApiMetrics,
): Promise<(Prediction[] | KgcError)[]> {
  const known = await knownAnswersBatch(
    db,
    queries.map(({ args }) => ({
      entity: args.entity,
      relation: args.relation,
      direction: args.direction,
      connected: args.excludeConnected,
    })),
  );
  const answers: (Prediction[] | KgcError)[] = new Array(queries.length);
  const byModel = new Map<ServingModel, number[]>();
  const ids: { entity: number; relation: number }[] = new Array(queries.length);
  for (const [i, query] of queries.entries()) {
    const resolved = await resolveIds(db, query, known[i] as KnownAnswers);
    if (resolved instanceof KgcError) {
      answers[i] = resolved;
      continue;
    }
    ids[i] = resolved;
    const group = byModel.get(query.model) ?? [];
    group.push(i);
    byModel.set(query.model, group);
  }
  for (const [model, group] of byModel) {
    const { scorer } = model;
    const excludes = group.map((i) => {
      const k = known[i] as KnownAnswers;
      const exclude = [(ids[i] as { entity: number }).entity];
      for (const id of [...k.existing, ...k.rejected, ...k.connected]) {
        const index = scorer.findEntity(id);
        if (index !== undefined) exclude.push(index);
      }
      return exclude;
    });
    const k = Math.max(...group.map((i) => (queries[i] as MissingLinksQuery).args.k));
    const started = process.hrtime.bigint();
    const tops = scorer.topKBatch(
      group.map((i) => ({
        ...(ids[i] as { entity: number; relation: number }),
        direction: queries[i]!.args.direction,
      })),
      k,
      excludes,
    );
    metrics?.observeScoring(group.length, Number(process.hrtime.bigint() - started) / 1e9);
    group.forEach((i, g) => {
      const { args } = queries[i] as MissingLinksQuery;
      const minimum = args.minProbability ?? 0;
      answers[i] = (tops[g] ?? [])
        .slice(0, args.k)
        .filter((row) => row.probability >= minimum)
        .map((row, rank) => ({
          entity: { id: row.id },
          rank: rank + 1,
          logit: row.logit,
          probability: row.probability,
          modelVersion: model.version,
        }));
    });
  }
  return answers;
}
