import type { ManagedTransaction } from 'neo4j-driver';
import { ErrorCode, KgcError } from '../../errors';
import type { Database } from '../database';
import { DEFAULT_SCOPE, isoTime, stringOrNull } from './registry-scope';

export interface LeaseState {
  holder: string | null;
  runId: string | null;
  expiresAt: string | null;
}

export interface LeaseAttempt extends LeaseState {
  acquired: boolean;
  /** The fencing token: it grows with every acquisition, so a holder taken over is told apart. */
  generation: number;
}

/** What a holder proves it still holds the lease with (see `assertLeaseHeld`). */
export interface LeaseToken {
  holder: string;
  generation: number;
}

/**
 * The lease that lets one training job run at a time per scope, across every worker and
 * `kgc train`. Times come from the database's clock (`timestamp()`), so holders on machines
 * whose clocks differ agree on expiry. The first statement writes the lease node, which takes
 * its write lock: two acquirers run one after the other and the second sees the first's holder.
 */
export async function acquireLease(
  db: Database,
  lease: { holder: string; ttlSeconds: number },
  scope = DEFAULT_SCOPE,
): Promise<LeaseAttempt> {
  return db.write(async (tx) => {
    await tx.run('MERGE (l:JobLease {scope: $scope}) SET l.touchedAt = timestamp()', { scope });
    const result = await tx.run(
      `MATCH (l:JobLease {scope: $scope})
       WITH l, l.holder IS NULL OR l.expiresAt < timestamp() OR l.holder = $holder AS free
       FOREACH (_ IN CASE WHEN free THEN [1] ELSE [] END |
         SET l.holder = $holder, l.expiresAt = timestamp() + $ttl, l.acquiredAt = timestamp(),
             l.runId = null, l.generation = coalesce(l.generation, 0) + 1)
       RETURN free, l.holder AS holder, l.runId AS runId, l.expiresAt AS expiresAt,
              l.generation AS generation`,
      { scope, holder: lease.holder, ttl: lease.ttlSeconds * 1000 },
    );
    const row = result.records[0];
    return {
      acquired: row?.get('free') === true,
      holder: stringOrNull(row?.get('holder')),
      runId: stringOrNull(row?.get('runId')),
      expiresAt: isoTime(row?.get('expiresAt')),
      generation: Number(row?.get('generation') ?? 0),
    };
  });
}

/**
 * Extends the lease; false when `holder` no longer holds it (it expired and was taken). With a
 * `generation`, only that acquisition of the lease is extended.
 */
export async function renewLease(
  db: Database,
  lease: { holder: string; ttlSeconds: number; runId?: string; generation?: number },
  scope = DEFAULT_SCOPE,
): Promise<boolean> {
  return db.write(async (tx) => {
    const result = await tx.run(
      `MATCH (l:JobLease {scope: $scope, holder: $holder})
       WHERE $generation IS NULL OR l.generation = $generation
       SET l.expiresAt = timestamp() + $ttl, l.runId = coalesce($runId, l.runId),
           l.renewedAt = timestamp()
       RETURN count(l) AS n`,
      {
        scope,
        holder: lease.holder,
        ttl: lease.ttlSeconds * 1000,
        runId: lease.runId ?? null,
        generation: lease.generation ?? null,
      },
    );
    return Number(result.records[0]?.get('n') ?? 0) > 0;
  });
}

/**
 * Inside a transaction that acts for a job (the promotion): throws JOB_LEASE_LOST unless the
 * job's acquisition of the lease still holds it and has not expired. It writes the lease node
 * first, which takes its lock: an acquirer waits for this transaction and then finds the lease
 * held, so nobody takes it over between this check and the commit.
 */
export async function assertLeaseHeld(
  tx: ManagedTransaction,
  token: LeaseToken,
  scope = DEFAULT_SCOPE,
): Promise<void> {
  const result = await tx.run(
    `MATCH (l:JobLease {scope: $scope}) SET l.checkedAt = timestamp()
     RETURN l.holder AS holder, l.generation AS generation,
            l.expiresAt IS NOT NULL AND l.expiresAt >= timestamp() AS live`,
    { scope },
  );
  const row = result.records[0];
  const holder = stringOrNull(row?.get('holder'));
  const generation = Number(row?.get('generation') ?? 0);
  if (holder === token.holder && generation === token.generation && row?.get('live') === true) {
    return;
  }
  const why =
    holder === token.holder && generation === token.generation
      ? 'its lease expired (it was not renewed in time)'
      : `its lease was taken over (now held by ${holder ?? 'nobody'}, generation ${generation}; ` +
        `the job held generation ${token.generation})`;
  throw new KgcError(
    ErrorCode.JOB_LEASE_LOST,
    `The training job lost its lease: ${why}. It promoted nothing; the next run retrains.`,
  );
}

export async function releaseLease(
  db: Database,
  holder: string,
  scope = DEFAULT_SCOPE,
): Promise<void> {
  await db.write((tx) =>
    tx.run(
      `MATCH (l:JobLease {scope: $scope, holder: $holder})
       SET l.holder = null, l.expiresAt = null, l.runId = null`,
      { scope, holder },
    ),
  );
}

export async function getLease(db: Database, scope = DEFAULT_SCOPE): Promise<LeaseState> {
  return db.read(async (tx) => {
    const result = await tx.run(
      `MATCH (l:JobLease {scope: $scope})
       RETURN l.holder AS holder, l.runId AS runId,
              CASE WHEN l.expiresAt < timestamp() THEN null ELSE l.expiresAt END AS expiresAt`,
      { scope },
    );
    const row = result.records[0];
    const expiresAt = isoTime(row?.get('expiresAt'));
    return {
      holder: expiresAt ? stringOrNull(row?.get('holder')) : null,
      runId: expiresAt ? stringOrNull(row?.get('runId')) : null,
      expiresAt,
    };
  });
}
