import type { ManagedTransaction } from 'neo4j-driver';
import { ErrorCode, KgcError } from '../../errors';
import type { Database } from '../database';
import { assertLeaseHeld } from './job-lease';
import type { LeaseToken } from './job-lease';
import { DEFAULT_SCOPE, isoTime, numberOrNull, parseJson, stringOrNull } from './registry-scope';

export type VersionStatus = 'candidate' | 'active' | 'retired' | 'rejected';

export interface ModelVersionRecord {
  version: string;
  status: VersionStatus;
  active: boolean;
  /** Held-out metrics (overall and per relation), as the job recorded them. */
  metrics: unknown;
  /** The promotion gate's outcome (both scores, edges compared and left out), when it ran. */
  gate: unknown;
  testMrr: number | null;
  createdAt: string;
  promotedAt: string | null;
  trigger: string;
  triples: number;
  entities: number;
  relations: number;
  fingerprint: string;
  dir: string;
  runId: string | null;
  /** The version that was active before this one was promoted (what rollback returns to). */
  previousActive: string | null;
}

export interface NewVersion {
  version: string;
  dir: string;
  trigger: string;
  metrics: unknown;
  testMrr: number | null;
  triples: number;
  entities: number;
  relations: number;
  fingerprint: string;
  runId?: string;
}

/** What a serving process needs to follow the registry. */
export interface ActiveVersion {
  version: string;
  dir: string;
}

function toRecord(m: Record<string, unknown>): ModelVersionRecord {
  return {
    version: m.id as string,
    status: m.status as VersionStatus,
    active: m.status === 'active',
    metrics: parseJson(m.metrics),
    gate: parseJson(m.gate),
    testMrr: numberOrNull(m.testMrr),
    createdAt: isoTime(m.createdAt) as string,
    promotedAt: isoTime(m.promotedAt),
    trigger: String(m.trigger ?? ''),
    triples: Number(m.triples ?? 0),
    entities: Number(m.entities ?? 0),
    relations: Number(m.relations ?? 0),
    fingerprint: String(m.fingerprint ?? ''),
    dir: String(m.dir ?? ''),
    runId: stringOrNull(m.runId),
    previousActive: stringOrNull(m.previousActiveId),
  };
}

export async function registerVersion(
  db: Database,
  v: NewVersion,
  scope = DEFAULT_SCOPE,
): Promise<ModelVersionRecord> {
  return db.write(async (tx) => {
    const result = await tx.run(
      `CREATE (m:ModelVersion {id: $id, scope: $scope, status: 'candidate', dir: $dir,
         trigger: $trigger, metrics: $metrics, testMrr: $testMrr, triples: $triples,
         entities: $entities, relations: $relations, fingerprint: $fingerprint,
         runId: $runId, createdAt: timestamp()})
       WITH m
       OPTIONAL MATCH (run:TrainingRun {id: $runId})
       FOREACH (_ IN CASE WHEN run IS NULL THEN [] ELSE [1] END |
         MERGE (run)-[:PRODUCED]->(m) SET run.version = $id)
       RETURN properties(m) AS m`,
      {
        id: v.version,
        scope,
        dir: v.dir,
        trigger: v.trigger,
        metrics: JSON.stringify(v.metrics ?? null),
        testMrr: v.testMrr,
        triples: v.triples,
        entities: v.entities,
        relations: v.relations,
        fingerprint: v.fingerprint,
        runId: v.runId ?? null,
      },
    );
    return toRecord(result.records[0]?.get('m') as Record<string, unknown>);
  });
}

/** Serialises promote and rollback within a scope: both lock this node first. */
async function lockRegistry(tx: ManagedTransaction, scope: string): Promise<void> {
  await tx.run('MERGE (r:ModelRegistry {scope: $scope}) SET r.lockedAt = timestamp()', { scope });
}

async function findVersion(
  tx: ManagedTransaction,
  id: string,
  scope: string,
): Promise<ModelVersionRecord> {
  const result = await tx.run(
    'MATCH (m:ModelVersion {id: $id, scope: $scope}) RETURN properties(m) AS m',
    { id, scope },
  );
  const row = result.records[0];
  if (!row) {
    throw new KgcError(
      ErrorCode.NOT_FOUND,
      `No model version "${id}": \`npx kgc models list\` shows the versions.`,
    );
  }
  return toRecord(row.get('m') as Record<string, unknown>);
}

async function activeIn(tx: ManagedTransaction, scope: string): Promise<string | null> {
  const result = await tx.run(
    "MATCH (m:ModelVersion {scope: $scope, status: 'active'}) RETURN m.id AS id",
    { scope },
  );
  return (result.records[0]?.get('id') as string | undefined) ?? null;
}

/** What a job's promotion must still find true inside the promotion's transaction. */
export interface PromotionGuard {
  /** The job's lease: promote only while this acquisition of it holds (JOB_LEASE_LOST). */
  lease?: LeaseToken;
  /**
   * The version the job's gate compared against (null: none was active): promote only if it is
   * still the active one, so an operator's rollback or promote meanwhile is never undone
   * (ACTIVE_VERSION_CHANGED).
   */
  expectedActive?: string | null;
}

export interface PromotionResult {
  version: string;
  /** The version that was active before (now retired), if any. */
  previous: string | null;
}

/**
 * Makes `id` the active version in one transaction: the current one is retired and remembered
 * as the new one's `previousActive`. Exactly one version is active before and after, and the
 * database's uniqueness constraint on `activeScope` refuses any second one. A job passes a
 * `guard`, checked in the same transaction (an operator's promote passes none).
 */
export async function promoteVersion(
  db: Database,
  id: string,
  scope = DEFAULT_SCOPE,
  guard: PromotionGuard = {},
): Promise<PromotionResult> {
  return db.write(async (tx) => {
    await lockRegistry(tx, scope);
    if (guard.lease) await assertLeaseHeld(tx, guard.lease, scope);
    await findVersion(tx, id, scope);
    const previous = await activeIn(tx, scope);
    if (guard.expectedActive !== undefined && previous !== guard.expectedActive) {
      throw new KgcError(
        ErrorCode.ACTIVE_VERSION_CHANGED,
        `The active version changed while the job ran (from ${guard.expectedActive ?? 'none'} ` +
          `to ${previous ?? 'none'}: an operator's rollback or promote): ${id} was not promoted ` +
          'over it. The next run compares against the new active version.',
      );
    }
    if (previous === id) return { version: id, previous: null };
    await tx.run(
      `MATCH (cur:ModelVersion {scope: $scope, status: 'active'})
       SET cur.status = 'retired', cur.activeScope = null, cur.retiredAt = timestamp()`,
      { scope },
    );
    await tx.run(
      `MATCH (m:ModelVersion {id: $id, scope: $scope})
       SET m.status = 'active', m.activeScope = $scope, m.promotedAt = timestamp(),
           m.previousActiveId = $previous`,
      { id, scope, previous },
    );
    return { version: id, previous };
  });
}

/**
 * Re-activates the version that was active before the current one, in one transaction; the
 * current one is retired. Repeated rollbacks walk further back.
 */
export async function rollbackVersion(
  db: Database,
  scope = DEFAULT_SCOPE,
): Promise<PromotionResult> {
  return db.write(async (tx) => {
    await lockRegistry(tx, scope);
    const current = await activeIn(tx, scope);
    if (current === null) {
      throw new KgcError(
        ErrorCode.NOT_FOUND,
        'No version is active: there is nothing to roll back.',
      );
    }
    const record = await findVersion(tx, current, scope);
    if (record.previousActive === null) {
      throw new KgcError(
        ErrorCode.NOT_FOUND,
        `Version ${current} was the first active version: there is no earlier one to roll back to.`,
      );
    }
    const target = await findVersion(tx, record.previousActive, scope);
    await tx.run(
      `MATCH (cur:ModelVersion {id: $current, scope: $scope})
       SET cur.status = 'retired', cur.activeScope = null, cur.retiredAt = timestamp(),
           cur.rolledBackAt = timestamp()`,
      { current, scope },
    );
    await tx.run(
      `MATCH (m:ModelVersion {id: $id, scope: $scope})
       SET m.status = 'active', m.activeScope = $scope, m.promotedAt = timestamp()`,
      { id: target.version, scope },
    );
    return { version: target.version, previous: current };
  });
}

/** Records the gate's verdict on a candidate that was not promoted. */
export async function rejectVersion(
  db: Database,
  id: string,
  gate: unknown,
  scope = DEFAULT_SCOPE,
): Promise<void> {
  await db.write((tx) =>
    tx.run(
      `MATCH (m:ModelVersion {id: $id, scope: $scope, status: 'candidate'})
       SET m.status = 'rejected', m.gate = $gate`,
      { id, scope, gate: JSON.stringify(gate) },
    ),
  );
}

/** Stores the gate's outcome on a version (promoted or not). */
export async function recordGate(
  db: Database,
  id: string,
  gate: unknown,
  scope = DEFAULT_SCOPE,
): Promise<void> {
  await db.write((tx) =>
    tx.run('MATCH (m:ModelVersion {id: $id, scope: $scope}) SET m.gate = $gate', {
      id,
      scope,
      gate: JSON.stringify(gate),
    }),
  );
}

/** The active version, or null: what `kgc serve` polls to follow promotions and rollbacks. */
export async function getActiveVersion(
  db: Database,
  scope = DEFAULT_SCOPE,
): Promise<ActiveVersion | null> {
  return db.read(async (tx) => {
    const result = await tx.run(
      "MATCH (m:ModelVersion {scope: $scope, status: 'active'}) RETURN m.id AS id, m.dir AS dir",
      { scope },
    );
    const row = result.records[0];
    return row ? { version: row.get('id') as string, dir: row.get('dir') as string } : null;
  });
}

/** Every version of the scope, newest first. */
export async function listVersions(
  db: Database,
  scope = DEFAULT_SCOPE,
): Promise<ModelVersionRecord[]> {
  return db.read(async (tx) => {
    const result = await tx.run(
      `MATCH (m:ModelVersion {scope: $scope})
       RETURN properties(m) AS m ORDER BY m.createdAt DESC, m.id DESC`,
      { scope },
    );
    return result.records.map((r) => toRecord(r.get('m') as Record<string, unknown>));
  });
}

export async function getVersion(
  db: Database,
  id: string,
  scope = DEFAULT_SCOPE,
): Promise<ModelVersionRecord> {
  return db.read((tx) => findVersion(tx, id, scope));
}
