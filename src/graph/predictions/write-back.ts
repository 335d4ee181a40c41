import type { ManagedTransaction } from 'neo4j-driver';
import { ErrorCode, KgcError } from '../../errors';
import type { Database } from '../database';
import { indexesInLockOrder } from '../lock-order';
import { isoTime } from '../plain-value';
import { recordDecision } from './decision-log';
import { checkEdgeKey, EdgeKey, rejectionKey } from './edge-key';
import { EDGE_PROVENANCE as P, EDGE_SOURCE, edgeSource, SOURCE_PARAMS } from './provenance';
import {
  CREATE_ACCEPTED,
  CREATE_REJECTION,
  DELETE_EDGE,
  DELETE_REJECTION,
  ENDPOINTS,
  FIND_REJECTION,
  LOCK_AND_FIND_EDGE,
} from './write-back-queries';

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
  return edgeSource(edge) === EDGE_SOURCE.prediction;
}

function toAccepted(key: EdgeKey, edge: Record<string, unknown>): AcceptedEdge {
  return {
    ...key,
    modelVersion: (edge[P.modelVersion] as string | undefined) ?? null,
    logit: (edge[P.logit] as number | undefined) ?? null,
    probability: (edge[P.probability] as number | undefined) ?? null,
    acceptedBy: String(edge[P.acceptedBy] ?? ''),
    acceptedAt: isoTime(edge[P.acceptedAt]),
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

function notRevertible(key: EdgeKey, edge: Record<string, unknown>): KgcError {
  const triple = `(${key.head}, ${key.relation}, ${key.tail})`;
  const why =
    edgeSource(edge) === EDGE_SOURCE.ingest
      ? `was accepted from a prediction, then ingested as a fact (confirmed ${isoTime(edge[P.confirmedAt])})`
      : 'was ingested, not accepted from a prediction';
  return new KgcError(
    ErrorCode.EDGE_NOT_REVERTIBLE,
    `${triple} ${why}: only accepted predictions can be reverted; facts stay.`,
  );
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
      await tx.run(CREATE_ACCEPTED, {
        ...key,
        ...score,
        ...SOURCE_PARAMS,
        by,
        at,
        key: rejectionKey(key),
      });
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
    if (!isPrediction(edge)) throw notRevertible(key, edge);
    const removed = toAccepted(key, edge);
    await tx.run(DELETE_EDGE, { ...key, ...SOURCE_PARAMS });
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
