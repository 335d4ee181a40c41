import neo4j, { ManagedTransaction } from 'neo4j-driver';
import type { Database } from '../database';
import { isoTime } from '../plain-value';
import type { EdgeKey } from './edge-key';

export const DECISION_KINDS = ['ACCEPT', 'REJECT', 'UNDO_REJECTION', 'REVERT'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

/** One admin decision on a prediction: who, when, what, and the model version behind it. */
export interface DecisionRecord extends EdgeKey {
  id: string;
  kind: DecisionKind;
  by: string;
  /** ISO 8601. */
  at: string;
  modelVersion: string | null;
  logit: number | null;
  probability: number | null;
  reason: string | null;
}

export type NewDecision = Omit<DecisionRecord, 'id'>;

export interface DecisionPage {
  items: DecisionRecord[];
  /** Pass as `after` for the next page; null when this page is empty. */
  endCursor: string | null;
  hasMore: boolean;
}

const RECORD = `
CREATE (d:Decision {
  id: randomUUID(), kind: $kind, head: $head, relation: $relation, tail: $tail, by: $by,
  at: datetime($at), modelVersion: $modelVersion, logit: $logit, probability: $probability,
  reason: $reason
})`;

/** Records a decision inside the caller's write transaction (it commits with the change). */
export async function recordDecision(tx: ManagedTransaction, decision: NewDecision): Promise<void> {
  await tx.run(RECORD, { ...decision });
}

// Newest first; `id` breaks ties between decisions of the same instant.
const PAGE = `
MATCH (d:Decision)
WHERE ($kind IS NULL OR d.kind = $kind)
  AND ($afterAt IS NULL OR d.at < datetime($afterAt)
       OR (d.at = datetime($afterAt) AND d.id < $afterId))
RETURN d {.*} AS d
ORDER BY d.at DESC, d.id DESC
LIMIT $limit`;

/** A cursor is opaque to clients: base64url of `[at, id]` of the page's last decision. */
export function decisionCursor(decision: Pick<DecisionRecord, 'at' | 'id'>): string {
  return Buffer.from(JSON.stringify([decision.at, decision.id])).toString('base64url');
}

/** The `[at, id]` of a cursor, or undefined when it is not one of ours. */
export function parseDecisionCursor(cursor: string): [string, string] | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      !Number.isNaN(Date.parse(value[0])) &&
      typeof value[1] === 'string'
    ) {
      return [value[0], value[1]];
    }
  } catch {
    // not base64 JSON: not a cursor
  }
  return undefined;
}

export async function listDecisions(
  db: Database,
  options: { first: number; after?: [string, string]; kind?: DecisionKind },
): Promise<DecisionPage> {
  const result = await db.read((tx) =>
    tx.run(PAGE, {
      kind: options.kind ?? null,
      afterAt: options.after?.[0] ?? null,
      afterId: options.after?.[1] ?? null,
      limit: neo4j.int(options.first + 1),
    }),
  );
  const rows = result.records.map((r) => toDecision(r.get('d') as Record<string, unknown>));
  const items = rows.slice(0, options.first);
  const last = items[items.length - 1];
  return {
    items,
    endCursor: last ? decisionCursor(last) : null,
    hasMore: rows.length > options.first,
  };
}

function toDecision(d: Record<string, unknown>): DecisionRecord {
  return {
    id: d.id as string,
    kind: d.kind as DecisionKind,
    head: d.head as string,
    relation: d.relation as string,
    tail: d.tail as string,
    by: d.by as string,
    at: isoTime(d.at),
    modelVersion: (d.modelVersion as string | undefined) ?? null,
    logit: (d.logit as number | undefined) ?? null,
    probability: (d.probability as number | undefined) ?? null,
    reason: (d.reason as string | undefined) ?? null,
  };
}
