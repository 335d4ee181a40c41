import { Neo4jError } from 'neo4j-driver';
import type { Database } from '../database';
import { SUGGESTED_TYPE } from '../suggestions/suggested-type';

export interface RelationCount {
  name: string;
  edgeCount: number;
}

/**
 * Edges per relationship type from :Entity heads (written suggestions, KGC_SUGGESTED, left out), read from Neo4j's count store through the
 * statistics procedure: constant time per type, and no name is ever written into query text
 * (a relation name can carry `\u0060`, which Cypher's lexer turns into a backtick before it
 * reads a quoted identifier, so no escaping of a spliced name is safe).
 */
const COUNT_STORE = `
CALL db.stats.retrieve('GRAPH COUNTS') YIELD data
UNWIND data.relationships AS c
WITH c WHERE c.startLabel = 'Entity' AND c.endLabel IS NULL AND c.count > 0
  AND c.relationshipType <> $suggested
  AND ($relation IS NULL OR c.relationshipType = $relation)
RETURN c.relationshipType AS name, c.count AS n`;

/**
 * The same counts where the statistics procedure is not allowed (a role without it on
 * Enterprise or Aura): the type is a parameter (Neo4j 5.26 dynamic types), which costs a scan
 * instead of a count-store lookup but stays exact.
 */
const TYPES = `
CALL db.relationshipTypes() YIELD relationshipType AS name
WITH name WHERE ($relation IS NULL OR name = $relation) AND name <> $suggested
RETURN name`;
const DYNAMIC_COUNT = 'MATCH (:Entity)-[r:$($name)]->() RETURN count(r) AS n';

/** Databases whose user may not call db.stats.retrieve: asked once per Database. */
const withoutStatistics = new WeakSet<Database>();

function statisticsRefused(error: unknown): boolean {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  const code = cause instanceof Neo4jError ? cause.code : '';
  return (
    code.startsWith('Neo.ClientError.Security.') ||
    code === 'Neo.ClientError.Procedure.ProcedureNotFound'
  );
}

async function countsFromStatistics(
  db: Database,
  relation: string | null,
): Promise<RelationCount[]> {
  const result = await db.read((tx) =>
    tx.run(COUNT_STORE, { relation, suggested: SUGGESTED_TYPE }),
  );
  return result.records.map((r) => ({
    name: r.get('name') as string,
    edgeCount: Number(r.get('n')),
  }));
}

/** Exported for the test that covers the path taken without the statistics procedure. */
export async function countsByDynamicType(
  db: Database,
  relation: string | null,
): Promise<RelationCount[]> {
  return db.read(async (tx) => {
    const names = (await tx.run(TYPES, { relation, suggested: SUGGESTED_TYPE })).records.map(
      (r) => r.get('name') as string,
    );
    const counts: RelationCount[] = [];
    for (const name of names) {
      const n = Number((await tx.run(DYNAMIC_COUNT, { name })).records[0]?.get('n') ?? 0);
      if (n > 0) counts.push({ name, edgeCount: n });
    }
    return counts;
  });
}

async function counts(db: Database, relation: string | null): Promise<RelationCount[]> {
  if (!withoutStatistics.has(db)) {
    try {
      return await countsFromStatistics(db, relation);
    } catch (error) {
      if (!statisticsRefused(error)) throw error;
      withoutStatistics.add(db);
    }
  }
  return countsByDynamicType(db, relation);
}

/** Every relationship type in use from entities with its edge count, sorted by name. */
export async function relationCounts(db: Database): Promise<RelationCount[]> {
  return (await counts(db, null)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Whether any edge of type `relation` leaves an entity; the name is compared, never parsed. */
export async function relationInGraph(db: Database, relation: string): Promise<boolean> {
  return (await counts(db, relation)).length > 0;
}
