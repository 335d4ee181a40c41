import { ErrorCode, KgcError } from '../errors';
import { Database, knownAnswersBatch, relationInGraph } from '../graph';
import type { KnownAnswers } from '../graph';
import { Direction } from '../schema/direction.enum';
import type { Prediction } from '../schema/prediction.type';
import { checkId, checkIntRange } from './arguments';
import { servingProbability } from '../model';
import type { ServingModel } from '../model';
import type { ScoredEntity } from '../model';
import type { ApiMetrics } from './api-metrics';
import { notInModel } from './not-in-model';
import { rankWithRules, walkQueries } from './rule-ranking';
import type { RankedQuery } from './rule-ranking';

export const MAX_K = 1000;

export interface MissingLinksArgs {
  entity: string;
  relation: string;
  k: number;
  direction: Direction;
  minProbability?: number | null;
  excludeConnected: boolean;
  /** Only candidates in the range / domain (default true); a version without types filters nothing. */
  typed?: boolean;
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
      notInModel('Argument entity', args.entity, model.foldInHeldBack?.has(args.entity)),
    );
  }
  return { entity, relation };
}

/**
 * Extra candidates scored while the known-edges read is in flight: the served model ranks the
 * edges it was trained on near the top, so a query needs k plus about as many known answers.
 */
const SPECULATIVE_MARGIN = 64;

interface ScoringGroup {
  model: ServingModel;
  /** Query indices. */
  members: number[];
  /** Each member's query in the model's ids. */
  scored: { entity: number; relation: number; direction: Direction }[];
  /** Candidates per member, best first (excluding only the entity itself). */
  candidates?: ScoredEntity[][];
  /** How many candidates each member asked for. */
  depth: number;
}

/**
 * Scores the queries that the models can answer before their known edges are read, as top
 * (k + margin) lists that exclude only the entity itself. Queries that exclude whole
 * neighbourhoods (excludeConnected) are left to the exact pass.
 */
async function scoreAhead(
  queries: readonly MissingLinksQuery[],
  metrics?: ApiMetrics,
): Promise<ScoringGroup[]> {
  const groups = new Map<ServingModel, ScoringGroup>();
  for (const [i, { args, model }] of queries.entries()) {
    if (args.excludeConnected) continue;
    const entity = model.scorer.findEntity(args.entity);
    const relation = model.scorer.findRelation(args.relation);
    if (entity === undefined || relation === undefined) continue;
    const group = groups.get(model) ?? { model, members: [], scored: [], depth: 0 };
    group.members.push(i);
    group.scored.push({ entity, relation, direction: args.direction });
    group.depth = Math.max(group.depth, args.k + Math.max(SPECULATIVE_MARGIN, args.k));
    groups.set(model, group);
  }
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const started = process.hrtime.bigint();
      group.candidates = await group.model.scorer.topKBatchAsync(
        group.scored,
        group.depth,
        group.scored.map((q, g) =>
          withOutOfRange(
            [q.entity],
            group.model,
            q,
            queries[group.members[g] as number] as MissingLinksQuery,
          ),
        ),
      );
      metrics?.observeScoring(
        group.members.length,
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    }),
  );
  return [...groups.values()];
}

/**
 * The best `k` of `candidates` outside `excluded`, or undefined when the list ran out before k
 * of them were found and entities beyond it may belong in the answer. Exact: every entity
 * beyond the list scores at most as high as its last entry (ties in id order, as the engine).
 */
function topFromCandidates(
  candidates: ScoredEntity[],
  depth: number,
  k: number,
  excluded: Set<number>,
): ScoredEntity[] | undefined {
  const kept: ScoredEntity[] = [];
  for (const row of candidates) {
    if (excluded.has(row.index)) continue;
    kept.push(row);
    if (kept.length === k) return kept;
  }
  // Shorter than asked: the list held every entity there is.
  return candidates.length < depth ? kept : undefined;
}

/**
 * Answers many missingLinks queries with one Neo4j read (their known edges, rejections and,
 * where asked, neighbours) and one engine call per serving model, made while the read is in
 * flight: each query scores its (entity, relation) against every entity and keeps the best k
 * that are not edges of the graph now, not rejected, not the entity itself (nor linked to it,
 * with excludeConnected). The rare query with more known answers among its top candidates than
 * the margin is scored again with its exclusions. A query that cannot be answered gets its
 * error in its place; the others are unaffected.
 */
export async function answerMissingLinks(
  db: Database,
  queries: readonly MissingLinksQuery[],
  metrics?: ApiMetrics,
): Promise<(Prediction[] | KgcError)[]> {
  const reading = knownAnswersBatch(
    db,
    queries.map(({ args }) => ({
      entity: args.entity,
      relation: args.relation,
      direction: args.direction,
      connected: args.excludeConnected,
    })),
  );
  // The read is on the wire; score meanwhile, off the event loop (either may fail: both are
  // awaited below, and neither rejection is left unhandled).
  const scoring = scoreAhead(queries, metrics);
  reading.catch(() => undefined);
  scoring.catch(() => undefined);
  const known = await reading;
  const ahead = new Map<number, { candidates: ScoredEntity[]; depth: number }>();
  for (const group of await scoring) {
    group.members.forEach((i, g) =>
      ahead.set(i, { candidates: group.candidates?.[g] ?? [], depth: group.depth }),
    );
  }
  const answers: (Prediction[] | KgcError)[] = new Array(queries.length);
  const exact = new Map<
    ServingModel,
    {
      i: number;
      entity: number;
      relation: number;
      exclude: number[] | Uint32Array;
      known: number[];
    }[]
  >();
  for (const [i, query] of queries.entries()) {
    const resolved = await resolveIds(db, query, known[i] as KnownAnswers);
    if (resolved instanceof KgcError) {
      answers[i] = resolved;
      continue;
    }
    const { scorer } = query.model;
    const k = known[i] as KnownAnswers;
    const exclude = [resolved.entity];
    for (const id of [...k.existing, ...k.rejected, ...k.connected]) {
      const index = scorer.findEntity(id);
      if (index !== undefined) exclude.push(index);
    }
    const speculative = ahead.get(i);
    const top =
      speculative &&
      topFromCandidates(speculative.candidates, speculative.depth, query.args.k, new Set(exclude));
    if (top) {
      const ranking = rankedQuery(query, resolved, exclude);
      const [evidence] = await walkQueries(query.model, [ranking]);
      const ranked = await rankWithRules(query.model, ranking, top, query.args.k, evidence);
      answers[i] = toPredictions(query, resolved.relation, ranked);
      continue;
    }
    const group = exact.get(query.model) ?? [];
    group.push({
      i,
      ...resolved,
      known: exclude,
      exclude: withOutOfRange(
        exclude,
        query.model,
        { relation: resolved.relation, direction: query.args.direction },
        query,
      ),
    });
    exact.set(query.model, group);
  }
  await Promise.all(
    [...exact].map(async ([model, group]) => {
      const k = Math.max(...group.map(({ i }) => (queries[i] as MissingLinksQuery).args.k));
      const started = process.hrtime.bigint();
      const rankings = group.map(({ i, entity, relation, known: exclude }) =>
        rankedQuery(queries[i] as MissingLinksQuery, { entity, relation }, exclude),
      );
      // The rules' walks run beside the scoring, both on the engine's worker threads.
      const [tops, walks] = await Promise.all([
        model.scorer
          .topKBatchAsync(
            rankings.map(({ entity, relation, direction }) => ({ entity, relation, direction })),
            k,
            group.map(({ exclude }) => exclude),
          )
          .finally(() =>
            metrics?.observeScoring(group.length, Number(process.hrtime.bigint() - started) / 1e9),
          ),
        walkQueries(model, rankings),
      ]);
      for (const [g, { i, relation }] of group.entries()) {
        const query = queries[i] as MissingLinksQuery;
        const ranked = await rankWithRules(
          model,
          rankings[g] as RankedQuery,
          tops[g] ?? [],
          query.args.k,
          walks[g],
        );
        answers[i] = toPredictions(query, relation, ranked);
      }
    }),
  );
  return answers;
}

/**
 * `exclude` plus the entities outside the relation's range / domain when the query is typed and
 * the model learned types (the precomputed list, so the engine never ranks them): the
 * speculative and the exact pass both go through here.
 */
function withOutOfRange(
  exclude: number[],
  model: ServingModel,
  query: { relation: number; direction: Direction },
  { args }: MissingLinksQuery,
): number[] | Uint32Array {
  if (args.typed === false || !model.types) return exclude;
  const outside = model.types.outOfRange(query.relation, query.direction);
  if (outside.length === 0) return exclude;
  const all = new Uint32Array(outside.length + exclude.length);
  all.set(outside);
  all.set(exclude, outside.length);
  return all;
}

/** The query as rankWithRules reads it: `exclude` the entities its answer may never hold. */
function rankedQuery(
  { args }: MissingLinksQuery,
  ids: { entity: number; relation: number },
  exclude: number[],
): RankedQuery {
  return {
    ...ids,
    direction: args.direction,
    typed: args.typed !== false,
    excluded: exclude,
  };
}

function toPredictions(
  { args, model }: MissingLinksQuery,
  relation: number,
  top: ScoredEntity[],
): Prediction[] {
  const minimum = args.minProbability ?? 0;
  return top
    .slice(0, args.k)
    .map((row) => ({
      row,
      probability: servingProbability(model, relation, args.direction, row.logit),
    }))
    .filter(({ probability }) => probability >= minimum)
    .map(({ row, probability }, rank) => ({
      entity: { id: row.id },
      rank: rank + 1,
      logit: row.logit,
      probability,
      typeConsistent: model.types
        ? model.types.isConsistent(relation, args.direction, row.index)
        : null,
      modelVersion: model.version,
      foldedIn: model.folded?.ids.has(args.entity) ?? false,
      query: { entity: args.entity, relation: args.relation, direction: args.direction, model },
    }));
}
