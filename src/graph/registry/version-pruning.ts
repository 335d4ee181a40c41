import type { Database } from '../database';
import { DEFAULT_SCOPE, isoTime } from './registry-scope';

/** A version once promoted whose files were not pruned: a fallback for a serving process. */
export interface PromotedVersion {
  version: string;
  dir: string;
}

/** What retention may not remove: the active version, its rollback target, ungated candidates. */
export async function protectedVersions(db: Database, scope = DEFAULT_SCOPE): Promise<string[]> {
  return db.read(async (tx) => {
    const result = await tx.run(
      `MATCH (m:ModelVersion {scope: $scope})
       WHERE m.status IN ['active', 'candidate']
       RETURN m.id AS id, CASE WHEN m.status = 'active' THEN m.previousActiveId END AS target`,
      { scope },
    );
    return result.records
      .flatMap((r) => [r.get('id') as string, r.get('target') as string | null])
      .filter((v): v is string => typeof v === 'string');
  });
}

/**
 * Marks versions as pruned before their files go, under the lock that promote and rollback take,
 * and only those that are still neither active, nor the rollback target, nor candidates at that
 * moment. Returns the ids marked: only their files may be removed.
 */
export async function markVersionsPruned(
  db: Database,
  ids: readonly string[],
  scope = DEFAULT_SCOPE,
): Promise<string[]> {
  if (ids.length === 0) return [];
  return db.write(async (tx) => {
    await tx.run('MERGE (r:ModelRegistry {scope: $scope}) SET r.lockedAt = timestamp()', {
      scope,
    });
    const result = await tx.run(
      `OPTIONAL MATCH (a:ModelVersion {scope: $scope, status: 'active'})
       WITH [x IN [a.id, a.previousActiveId] WHERE x IS NOT NULL] AS guarded
       MATCH (m:ModelVersion {scope: $scope})
       WHERE m.id IN $ids AND NOT m.status IN ['active', 'candidate'] AND NOT m.id IN guarded
       SET m.prunedAt = coalesce(m.prunedAt, timestamp())
       RETURN m.id AS id`,
      { scope, ids: [...ids] },
    );
    return result.records.map((r) => r.get('id') as string);
  });
}

/** Versions whose files retention removed, with when (ISO time). */
export async function prunedVersions(
  db: Database,
  scope = DEFAULT_SCOPE,
): Promise<Map<string, string>> {
  return db.read(async (tx) => {
    const result = await tx.run(
      `MATCH (m:ModelVersion {scope: $scope}) WHERE m.prunedAt IS NOT NULL
       RETURN m.id AS id, m.prunedAt AS at`,
      { scope },
    );
    return new Map(result.records.map((r) => [r.get('id') as string, isoTime(r.get('at')) ?? '']));
  });
}

/** Versions that were ever promoted and still have files, the most recently promoted first. */
export async function promotedVersions(
  db: Database,
  scope = DEFAULT_SCOPE,
): Promise<PromotedVersion[]> {
  return db.read(async (tx) => {
    const result = await tx.run(
      `MATCH (m:ModelVersion {scope: $scope})
       WHERE m.promotedAt IS NOT NULL AND m.prunedAt IS NULL
       RETURN m.id AS id, m.dir AS dir ORDER BY m.promotedAt DESC, m.id DESC`,
      { scope },
    );
    return result.records.map((r) => ({
      version: r.get('id') as string,
      dir: String(r.get('dir') ?? ''),
    }));
  });
}
