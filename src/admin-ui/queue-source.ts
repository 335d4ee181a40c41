/** The review queue and the decisions on its items (the reviewQueue / reviewStats contract). */
import { gql } from './api';

export type Direction = 'TAIL' | 'HEAD';

export interface EntityView {
  id: string;
  properties: Record<string, unknown>;
}

export interface ReasonView {
  kind: 'PATH' | 'SIMILAR_ENTITY';
  rule: { text: string; confidence: number } | null;
  edges: { head: string; relation: string; tail: string }[];
  similarity: number | null;
}

export interface ReviewItem {
  head: EntityView;
  relation: string;
  tail: EntityView;
  direction: Direction;
  probability: number;
  logit: number;
  modelVersion: string;
  typeConsistent: boolean | null;
  reasons: ReasonView[];
}

export interface ReviewPage {
  items: ReviewItem[];
  endCursor: string | null;
  hasMore: boolean;
}

export interface ReviewStats {
  accepted: number;
  rejected: number;
}

export interface EdgeKey {
  head: string;
  relation: string;
  tail: string;
}

export const edgeOf = (item: ReviewItem): EdgeKey => ({
  head: item.head.id,
  relation: item.relation,
  tail: item.tail.id,
});

export const itemKey = (item: ReviewItem): string =>
  JSON.stringify([item.head.id, item.relation, item.tail.id]);

const QUEUE = `query($relation: String!, $direction: Direction!, $minProbability: Float, $first: Int!, $after: String) {
  reviewQueue(relation: $relation, direction: $direction, minProbability: $minProbability, first: $first, after: $after) {
    items {
      head { id properties } relation tail { id properties } direction
      probability logit modelVersion typeConsistent
      reasons { kind rule { text confidence } edges { head relation tail } similarity }
    }
    endCursor hasMore
  }
}`;

const STATS = `query($relation: String!, $direction: Direction!) {
  reviewQueue(relation: $relation, direction: $direction, first: 1) { pending }
  reviewStats(relation: $relation) { accepted rejected }
}`;

export interface QueueQuery {
  relation: string;
  direction: Direction;
  minProbability: number | null;
  first: number;
  after: string | null;
}

export async function fetchQueue(key: string, query: QueueQuery): Promise<ReviewPage> {
  const data = await gql<{ reviewQueue: ReviewPage }>(key, QUEUE, { ...query });
  return data.reviewQueue;
}

/** The relation's decision counts: asked for beside the queue, never in its way. */
export async function fetchStats(
  key: string,
  relation: string,
  direction: Direction,
): Promise<{ stats: ReviewStats; pending: number }> {
  const data = await gql<{ reviewQueue: { pending: number }; reviewStats: ReviewStats }>(
    key,
    STATS,
    { relation, direction },
  );
  return { stats: data.reviewStats, pending: data.reviewQueue.pending };
}

const EDGE_ARGS = '$head: String!, $relation: String!, $tail: String!';
const EDGE = 'head: $head, relation: $relation, tail: $tail';

export async function accept(key: string, edges: EdgeKey[]): Promise<void> {
  if (edges.length === 1) {
    await gql(key, `mutation(${EDGE_ARGS}) { acceptPrediction(${EDGE}) { head } }`, {
      ...edges[0],
    });
    return;
  }
  await gql(key, 'mutation($items: [EdgeInput!]!) { acceptPredictions(items: $items) { head } }', {
    items: edges,
  });
}

export async function reject(key: string, edges: EdgeKey[], reason: string): Promise<void> {
  for (const edge of edges) {
    await gql(
      key,
      `mutation(${EDGE_ARGS}, $reason: String) { rejectPrediction(${EDGE}, reason: $reason) { head } }`,
      { ...edge, reason: reason === '' ? null : reason },
    );
  }
}

/** Undoes a decision of this session: an accepted edge leaves the graph, a rejection is lifted. */
export async function undo(key: string, kind: 'accept' | 'reject', edges: EdgeKey[]) {
  const field = kind === 'accept' ? 'revertAcceptedPrediction' : 'undoRejection';
  for (const edge of edges) {
    await gql(key, `mutation(${EDGE_ARGS}) { ${field}(${EDGE}) { head } }`, { ...edge });
  }
}
