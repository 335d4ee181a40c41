import type { ManagedTransaction } from 'neo4j-driver';
import { ErrorCode, KgcError } from '../../errors';
import type { Database } from '../database';
import { PREDICTION_SOURCE, PROVENANCE_PROPERTY } from '../triples/export-queries';
import { indexesInLockOrder } from '../lock-order';
import { isoTime } from '../plain-value';
import { recordDecision } from './decision-log';
import { checkEdgeKey, EdgeKey, rejectionKey } from './edge-key';

/** The serving model's score of an edge, taken at decision time (never from the client). */
export interface ModelScore {
  modelVersion: string;
  logit: number;
  probability: number;
}

export interface AcceptRequest extends EdgeKey {
  /** Null when the serving model cannot score the edge (a relation it has not seen). */
  score: ModelScore | null;
}

/** An accepted prediction: an edge of the graph with its provenance. */
export interface AcceptedEdge extends EdgeKey {
  modelVersion: string | null;
  logit: number | null;
  probability: number | null;
  acceptedBy: string;
  acceptedAt: string;
}

export interface Rejection extends EdgeKey {
  reason: string | null;
  rejectedBy: string | null;
  /** Null for rejections written by hand, without the API. */
  rejectedAt: string | null;
  modelVersion: string | null;
}

const ENDPOINTS = `
OPTIONAL MATCH (h:Entity {id: $head})
OPTIONAL MATCH (t:Entity {id: $tail})
RETURN h IS NOT NULL AS head, t IS NOT NULL AS tail`;

// Writing the head takes its lock, so concurrent decisions on the same head run one after the
// other and an edge is never created twice (the property set and removed leaves no trace).
const LOCK_AND_FIND_EDGE = `
MATCH (h:Entity {id: $head}), (t:Entity {id: $tail})
SET h.__kgcLock = true
REMOVE h.__kgcLock
WITH h, t
OPTIONAL MATCH (h)-[e]->(t) WHERE type(e) = $relation
RETURN e {.*} AS edge
LIMIT 1`;

const CREATE_ACCEPTED = `
MATCH (h:Entity {id: $head}), (t:Entity {id: $tail})
CREATE (h)-[e:$($relation)]->(t)
SET e.${PROVENANCE_PROPERTY} = '${PREDICTION_SOURCE}', e.modelVersion = $modelVersion,
    e.logit = $logit, e.probability = $probability, e.acceptedBy = $by, e.acceptedAt = datetime($at)
WITH count(e) AS created
OPTIONAL MATCH (p:RejectedPrediction {key: $key})
DELETE p`;

const DELETE_EDGE = `
MATCH (h:Entity {id: $head})-[e]->(t:Entity {id: $tail})
WHERE type(e) = $relation AND e.${PROVENANCE_PROPERTY} = '${PREDICTION_SOURCE}'
DELETE e`;

const FIND_REJECTION = `MATCH (p:RejectedPrediction {key: $key}) RETURN p {.*} AS p`;

const CREATE_REJECTION = `
CREATE (:RejectedPrediction {key: $key, head: $head, relation: $relation, tail: $tail,
  reason: $reason, rejectedBy: $by, rejectedAt: datetime($at), modelVersion: $modelVersion})`;

const DELETE_REJECTION = `MATCH (p:RejectedPrediction {key: $key}) DELETE p`;

type Edge = Record<string, unknown> | null;

async function requireEndpoints(tx: ManagedTransaction, edge: EdgeKey, where: string) {
  const record = (await tx.run(ENDPOINTS, edge)).records[0];
  for (const end of ['head', 'tail'] as const) {
    if (!record?.get(end)) {
      throw new KgcError(
        ErrorCode.ENTITY_NOT_FOUND,
        `Argument ${where}${end}: no entity "${edge[end]}" in the graph.`,
      );
    }
  }
}

async function lockAndFindEdge(tx: ManagedTransaction, edge: EdgeKey): Promise<Edge> {
  const record = (await tx.run(LOCK_AND_FIND_EDGE, edge)).records[0];
  return (record?.get('edge') as Edge) ?? null;
}

function isPrediction(edge: Edge): boolean {
  return edge !== null && edge[PROVENANCE_PROPERTY] === PREDICTION_SOURCE;
}

function toAccepted(key: EdgeKey, edge: Record<string, unknown>): AcceptedEdge {
  return {
    ...key,
    modelVersion: (edge.modelVersion as string | undefined) ?? null,
    logit: (edge.logit as number | undefined) ?? null,
    probability: (edge.probability as number | undefined) ?? null,
    acceptedBy: String(edge.acceptedBy ?? ''),
    acceptedAt: isoTime(edge.acceptedAt),
  };
}

function toRejection(p: Record<string, unknown>): Rejection {
  return {
    head: p.head as string,
    relation: p.relation as string,
    tail: p.tail as string,
    reason: (p.reason as string | undefined) ?? null,
    rejectedBy: (p.rejectedBy as string | undefined) ?? null,
    rejectedAt: p.rejectedAt ? isoTime(p.rejectedAt) : null,
    modelVersion: (p.modelVersion as string | undefined) ?? null,
  };
}

const where = (items: unknown[], i: number) => (items.length > 1 ? `items[${i}].` : '');

/**
 * Writes accepted predictions as edges with their provenance, all in one transaction (all or
 * nothing). Idempotent: an edge already accepted is returned as it was stored. Clears any
 * rejection of the same edge; records one ACCEPT decision per edge written.
 */
export async function acceptPredictions(
  db: Database,
  items: AcceptRequest[],
  by: string,
): Promise<AcceptedEdge[]> {
  items.forEach((item, i) => checkEdgeKey(item, where(items, i)));
  // Edges in lock order (two overlapping requests never deadlock), answers in request order.
  const order = indexesInLockOrder(items);
  return db.write(async (tx) => {
    const accepted: AcceptedEdge[] = new Array<AcceptedEdge>(items.length);
    for (const i of order) {
      const item = items[i]!;
      const key: EdgeKey = { head: item.head, relation: item.relation, tail: item.tail };
      await requireEndpoints(tx, key, where(items, i));
      const existing = await lockAndFindEdge(tx, key);
      if (existing && isPrediction(existing)) {
        accepted[i] = toAccepted(key, existing);
        continue;
      }
      if (existing) {
        throw new KgcError(
          ErrorCode.EDGE_EXISTS,
          `${where(items, i)}(${key.head}, ${key.relation}, ${key.tail}) is already a fact in the graph (not a prediction); nothing to accept.`,
        );
      }
      const at = new Date().toISOString();
      const score = {
        modelVersion: item.score?.modelVersion ?? null,
        logit: item.score?.logit ?? null,
        probability: item.score?.probability ?? null,
      };
      await tx.run(CREATE_ACCEPTED, { ...key, ...score, by, at, key: rejectionKey(key) });
      await recordDecision(tx, { kind: 'ACCEPT', ...key, ...score, by, at, reason: null });
      accepted[i] = { ...key, ...score, acceptedBy: by, acceptedAt: at };
    }
    return accepted;
  });
}

/** Removes an accepted prediction's edge; ingested edges are refused (EDGE_NOT_REVERTIBLE). */
export async function revertAcceptedPrediction(
  db: Database,
  key: EdgeKey,
  by: string,
): Promise<AcceptedEdge> {
  checkEdgeKey(key);
  return db.write(async (tx) => {
    await requireEndpoints(tx, key, '');
    const edge = await lockAndFindEdge(tx, key);
    if (!edge) {
      throw new KgcError(
        ErrorCode.EDGE_NOT_FOUND,
        `No edge (${key.head}, ${key.relation}, ${key.tail}) in the graph.`,
      );
    }
    if (!isPrediction(edge)) {
      throw new KgcError(
        ErrorCode.EDGE_NOT_REVERTIBLE,
        `(${key.head}, ${key.relation}, ${key.tail}) was ingested, not accepted from a prediction: only accepted predictions can be reverted.`,
      );
    }
    const removed = toAccepted(key, edge);
    await tx.run(DELETE_EDGE, key);
    await recordDecision(tx, {
      kind: 'REVERT',
      ...key,
      by,
      at: new Date().toISOString(),
      modelVersion: removed.modelVersion,
      logit: removed.logit,
      probability: removed.probability,
      reason: null,
    });
    return removed;
  });
}

/**
 * Records that `key` must never be suggested again. Idempotent: a second rejection returns the
 * first. An edge that is in the graph cannot be rejected (revert it first if it was accepted).
 */
export async function rejectPrediction(
  db: Database,
  key: EdgeKey,
  options: { by: string; reason: string | null; score: ModelScore | null },
): Promise<Rejection> {
  checkEdgeKey(key);
  return db.write(async (tx) => {
    await requireEndpoints(tx, key, '');
    const edge = await lockAndFindEdge(tx, key);
    if (edge) {
      throw new KgcError(
        ErrorCode.EDGE_EXISTS,
        `(${key.head}, ${key.relation}, ${key.tail}) is in the graph` +
          (isPrediction(edge)
            ? ' as an accepted prediction: revert it with revertAcceptedPrediction first.'
            : ' as a fact; it is never suggested, so there is nothing to reject.'),
      );
    }
    const found = (await tx.run(FIND_REJECTION, { key: rejectionKey(key) })).records[0];
    if (found) return toRejection(found.get('p') as Record<string, unknown>);
    const at = new Date().toISOString();
    const modelVersion = options.score?.modelVersion ?? null;
    await tx.run(CREATE_REJECTION, {
      ...key,
      key: rejectionKey(key),
      reason: options.reason,
      by: options.by,
      at,
      modelVersion,
    });
    await recordDecision(tx, {
      kind: 'REJECT',
      ...key,
      by: options.by,
      at,
      modelVersion,
      logit: options.score?.logit ?? null,
      probability: options.score?.probability ?? null,
      reason: options.reason,
    });
    return { ...key, reason: options.reason, rejectedBy: options.by, rejectedAt: at, modelVersion };
  });
}

/** Lifts a rejection, so the edge may be suggested again. */
export async function undoRejection(db: Database, key: EdgeKey, by: string): Promise<Rejection> {
  checkEdgeKey(key);
  return db.write(async (tx) => {
    const found = (await tx.run(FIND_REJECTION, { key: rejectionKey(key) })).records[0];
    if (!found) {
      throw new KgcError(
        ErrorCode.REJECTION_NOT_FOUND,
        `(${key.head}, ${key.relation}, ${key.tail}) was not rejected; nothing to undo.`,
      );
    }
    const rejection = toRejection(found.get('p') as Record<string, unknown>);
    await tx.run(DELETE_REJECTION, { key: rejectionKey(key) });
    await recordDecision(tx, {
      kind: 'UNDO_REJECTION',
      ...key,
      by,
      at: new Date().toISOString(),
      modelVersion: rejection.modelVersion,
      logit: null,
      probability: null,
      reason: null,
    });
    return rejection;
  });
}
