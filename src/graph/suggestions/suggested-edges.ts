import crypto from 'node:crypto';
import neo4j from 'neo4j-driver';
import type { Database } from '../database';

/** One suggestion as written to Neo4j. */
export interface SuggestedEdge {
  head: string;
  relation: string;
  tail: string;
  probability: number;
  logit: number;
}

/** Edges written or removed per transaction. */
export const SUGGESTED_BATCH = 5_000;

// The type is a fixed literal (suggested-type.ts); every value is a parameter.
const CREATE_BATCH = `
UNWIND $rows AS row
MATCH (h:Entity {id: row.head})
MATCH (t:Entity {id: row.tail})
CREATE (h)-[:KGC_SUGGESTED {relation: row.relation, probability: row.probability,
  logit: row.logit, modelVersion: $version, kgc_write: $write}]->(t)
RETURN count(*) AS n`;

const DELETE_OTHERS = `
MATCH (:Entity)-[s:KGC_SUGGESTED]->(:Entity)
WHERE s.kgc_write IS NULL OR s.kgc_write <> $write
WITH s LIMIT $limit
DELETE s
RETURN count(*) AS n`;

/**
 * Writes `edges` as `(:Entity)-[:KGC_SUGGESTED {relation, probability, logit, modelVersion}]->`
 * in batches, then removes every KGC_SUGGESTED edge of earlier writes (another version's, or
 * this version's before). Edges whose entities are gone are skipped. Returns how many were
 * written. A failure midway leaves the earlier suggestions in place beside part of the new ones
 * (each write is tagged), and the next run removes the partial write.
 */
export async function replaceSuggestedEdges(
  db: Database,
  version: string,
  edges: readonly SuggestedEdge[],
  onBatch?: (written: number) => void,
): Promise<number> {
  const write = crypto.randomUUID();
  let written = 0;
  for (let i = 0; i < edges.length; i += SUGGESTED_BATCH) {
    const rows = edges.slice(i, i + SUGGESTED_BATCH).map((e) => ({ ...e }));
    const result = await db.write((tx) => tx.run(CREATE_BATCH, { rows, version, write }));
    written += Number(result.records[0]?.get('n') ?? 0);
    onBatch?.(written);
  }
  for (;;) {
    const result = await db.write((tx) =>
      tx.run(DELETE_OTHERS, { write, limit: neo4j.int(SUGGESTED_BATCH) }),
    );
    if (Number(result.records[0]?.get('n') ?? 0) === 0) break;
  }
  return written;
}
