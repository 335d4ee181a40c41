/**
 * What a request costs, in units of one answer row, estimated from its arguments alone (before
 * any read or scoring): the server refuses an operation whose fields add up to more than
 * KGC_MAX_QUERY_COST. Aliases add up, so 30 aliases of a batch cost 30 batches.
 */
import type { ServingModel } from '../model';
import { MAX_EDGES } from './edge-probabilities';

/** Scoring one (entity, relation) against every entity and reading its known edges. */
export const SCORING_COST = 50;
/** excludeConnected reads every neighbour of the entity: a hub's read grows with its degree. */
export const CONNECTED_COST = 1000;

/**
 * Each answer row that asks for its reasons: the graph read walks the rules' paths from its head
 * to its tail (bounded per pair, but a Neo4j read per pair all the same).
 */
export const REASONS_ROW_COST = 20;

/** What the selection under a costly field asks for, where that changes the cost. */
export interface SelectionAsks {
  /** Prediction.reasons is selected somewhere under the field. */
  reasons?: boolean;
  /** `pending` (every stored suggestion checked against the graph) is selected under it. */
  pending?: boolean;
}

/** Stored suggestions checked against the graph per unit (`pending`, `reviewStats`). */
export const STORED_ITEMS_PER_UNIT = 100;

/** reviewStats reads every decision on the relation's suggestions, beside their lists. */
export const REVIEW_STATS_COST = 100;

/** One missingLinks query with its defaults applied (GraphQL coerces them before this runs). */
export function missingLinksCost(
  args: { k?: unknown; excludeConnected?: unknown },
  asks: SelectionAsks = {},
): number {
  const k = typeof args.k === 'number' && args.k > 0 ? args.k : 0;
  return (
    k +
    SCORING_COST +
    (args.excludeConnected === true ? CONNECTED_COST : 0) +
    (asks.reasons === true ? k * REASONS_ROW_COST : 0)
  );
}

/**
 * One edge of edgeProbabilities: two scoring passes (its tail and head questions), each like a
 * missingLinks query's but with one answer row and no list to build. A call of the documented
 * 1,000 edges fits the default limit with 1,000 units left for its known-edges reads.
 */
export const EDGE_COST = 19;

/**
 * Known tails read per unit: edgeProbabilities reads each distinct (head, relation)'s known
 * tails once, and a hub's read grows with its size (a head with 50,000 tails costs 50 units).
 */
export const KNOWN_TAILS_PER_UNIT = 1000;

/** What the served version knows that a cost counts before any read. */
export interface CostContext {
  /** How many tails `(head, relation, ?)` has in the version's graph (0: unknown or none). */
  knownTails(head: string, relation: string): number;
  /** How many suggestions the version stores for the relation (one direction, or both). */
  storedSuggestions(relation: string, direction?: 'tail' | 'head'): number;
}

/** The served version's graph (graph.bin) as the costs read it; nothing known without one. */
export function costContext(model: ServingModel): CostContext {
  const { graph, scorer, suggestions } = model;
  const stored = (relation: string, direction: 'tail' | 'head') =>
    suggestions?.list(relation, direction)?.items.length ?? 0;
  return {
    knownTails(head, relation) {
      const [h, r] = [scorer.findEntity(head), scorer.findRelation(relation)];
      // Folded entities (ids past the graph's) have no rows in it.
      if (!graph || h === undefined || r === undefined || h >= graph.nodes) return 0;
      const [from, to] = graph.range(h, 2 * r);
      return to - from;
    },
    storedSuggestions(relation, direction) {
      if (scorer.findRelation(relation) === undefined) return 0;
      return direction
        ? stored(relation, direction)
        : stored(relation, 'tail') + stored(relation, 'head');
    },
  };
}

/** Checking `items` stored suggestions against the graph. */
function storedItemsCost(items: number): number {
  return Math.ceil(items / STORED_ITEMS_PER_UNIT);
}

/** Each distinct (head, relation) of the edges: a unit per KNOWN_TAILS_PER_UNIT known tails. */
function knownTailsCost(edges: readonly unknown[], served: CostContext | undefined): number {
  if (!served) return 0;
  const pairs = new Set<string>();
  let cost = 0;
  for (const edge of edges) {
    const { head, relation } = (edge ?? {}) as { head?: unknown; relation?: unknown };
    if (typeof head !== 'string' || typeof relation !== 'string') continue;
    const key = JSON.stringify([head, relation]);
    if (pairs.has(key)) continue;
    pairs.add(key);
    cost += Math.ceil(served.knownTails(head, relation) / KNOWN_TAILS_PER_UNIT);
  }
  return cost;
}

/** The cost of each costly root field from its coerced arguments; other fields cost nothing. */
export const FIELD_COSTS: Readonly<
  Record<
    string,
    (args: Record<string, unknown>, asks: SelectionAsks, served?: CostContext) => number
  >
> = {
  missingLinks: missingLinksCost,
  missingLinksBatch: (args, asks) =>
    Array.isArray(args.queries)
      ? args.queries.reduce<number>(
          (sum, query) => sum + missingLinksCost((query ?? {}) as Record<string, unknown>, asks),
          0,
        )
      : 0,
  // A page of `first` items, each with a reasons read when asked for (first is 1 to 200).
  reviewQueue: (args, asks, served) => {
    const first = typeof args.first === 'number' && args.first > 0 ? Math.min(args.first, 200) : 0;
    const direction = args.direction === 'head' ? 'head' : 'tail';
    const pending =
      asks.pending === true && typeof args.relation === 'string' && served
        ? storedItemsCost(served.storedSuggestions(args.relation, direction))
        : 0;
    return first + (asks.reasons === true ? first * REASONS_ROW_COST : 0) + pending;
  },
  reviewStats: (args, asks, served) => {
    const stored =
      typeof args.relation === 'string' && served ? served.storedSuggestions(args.relation) : 0;
    // Its decisions are matched against both lists; `pending` checks them against the graph.
    return REVIEW_STATS_COST + storedItemsCost(stored) * (asks.pending === true ? 2 : 1);
  },
  // A list longer than MAX_EDGES is refused by the resolver, naming the argument.
  edgeProbabilities: (args, _asks, served) => {
    if (!Array.isArray(args.edges)) return 0;
    const edges = args.edges.slice(0, MAX_EDGES);
    return edges.length * EDGE_COST + knownTailsCost(edges, served);
  },
};

/** How to bring a refused request under the limit (part of QUERY_TOO_COSTLY's message). */
export const REDUCE_COST_HINT =
  'lower k, send fewer queries, edges or aliases per request (split the batch across requests), or drop excludeConnected or reasons';
