import type { Database } from '../database';
import type { EdgeKey } from './edge-key';

const REJECTIONS_OF = `
MATCH (p:RejectedPrediction)
WHERE p.relation IN $relations
RETURN p.head AS head, p.relation AS relation, p.tail AS tail
ORDER BY p.key`;

/**
 * Every prediction people rejected for any of `relations` (calibration negatives: edges judged
 * false). Ordered by key, so a job sees them in the same order each time.
 */
export async function rejectionsOf(db: Database, relations: readonly string[]): Promise<EdgeKey[]> {
  if (relations.length === 0) return [];
  const result = await db.readQuery(REJECTIONS_OF, { relations: [...relations] });
  return result.records.map((r) => ({
    head: r.get('head') as string,
    relation: r.get('relation') as string,
    tail: r.get('tail') as string,
  }));
}
