import type { Database } from '../database';

/** The latest accept or reject decision on one edge of a relation. */
export interface EdgeDecision {
  head: string;
  tail: string;
  kind: 'ACCEPT' | 'REJECT';
  /** The calibrated probability recorded at decision time (null: no model scored it then). */
  probability: number | null;
}

/**
 * Per edge of `$relation`, its latest decision; an edge whose latest decision undid the accept
 * or the rejection (REVERT, UNDO_REJECTION) is undecided again and left out.
 */
const LATEST = `
MATCH (d:Decision {relation: $relation})
WITH d ORDER BY d.at DESC, d.id DESC
WITH d.head AS head, d.tail AS tail, collect(d)[0] AS last
WHERE last.kind IN ['ACCEPT', 'REJECT']
RETURN head, tail, last.kind AS kind, last.probability AS probability`;

export async function latestDecisions(db: Database, relation: string): Promise<EdgeDecision[]> {
  const result = await db.readQuery(LATEST, { relation });
  return result.records.map((r) => ({
    head: r.get('head') as string,
    tail: r.get('tail') as string,
    kind: r.get('kind') as 'ACCEPT' | 'REJECT',
    probability: (r.get('probability') as number | null) ?? null,
  }));
}
