import os from 'node:os';
import crypto from 'node:crypto';
import { ErrorCode, KgcError } from '../../errors';
import type { Database } from '../database';

/** How long a lock lives without renewal; the holder renews it every third of that. */
export const DEFAULT_LOCK_TTL_MS = 30_000;

/** A lock's expiry; a lock written before expiries existed expires `ttl` after it was taken. */
const EXPIRES = 'coalesce(l.expiresAt, l.lockedAt + duration({milliseconds: $ttl}))';

interface Holder {
  id: string;
  owner: string;
  lockedAt: string;
  expiresAt: string;
  expired: boolean;
}

/**
 * A lock node guarded by a uniqueness constraint: the second runner's CREATE fails, so it waits.
 * Mirrors neo4j-migrations' `:__Neo4jMigrationsLock`, with an owner and an expiry that the
 * holder renews while it migrates: a runner that died (killed, its machine gone) leaves a lock
 * that expires, and the next runner takes it over, saying so, instead of waiting for a person.
 */
export class MigrationLock {
  private readonly id = crypto.randomUUID();
  readonly owner = `${os.hostname()}:${process.pid}`;
  private renewer: NodeJS.Timeout | undefined;
  private lostTo: string | undefined;

  constructor(
    private readonly db: Database,
    private readonly chain: string,
    private readonly ttlMs: number = DEFAULT_LOCK_TTL_MS,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  static async ensureConstraint(db: Database): Promise<void> {
    try {
      await db.autoCommit(
        'CREATE CONSTRAINT kgc_migrations_lock_name IF NOT EXISTS ' +
          'FOR (l:__Neo4jMigrationsLock) REQUIRE l.name IS UNIQUE',
      );
    } catch (error) {
      // A concurrent runner created it first: that is the outcome we wanted.
      if (!(error instanceof KgcError && /already exists|equivalent/i.test(error.message)))
        throw error;
    }
  }

  /** Takes the lock (a stale one over), or fails with MIGRATION_LOCKED after `timeoutMs`. */
  async acquire(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await this.tryCreate()) {
        this.startRenewing();
        return;
      }
      const holder = await this.holder();
      if (holder?.expired && (await this.removeStale(holder))) {
        this.log(
          `Taking over the migration lock of ${holder.owner} (taken ${holder.lockedAt}, ` +
            `expired ${holder.expiresAt} without renewal: that runner is gone).`,
        );
        continue;
      }
      if (Date.now() > deadline) {
        throw new KgcError(
          ErrorCode.MIGRATION_LOCKED,
          `Migrations are locked by ${holder ? `${holder.owner} since ${holder.lockedAt}, renewed until ${holder.expiresAt}` : 'another runner'}. ` +
            `Wait for it to finish; a runner that died loses the lock ${this.ttlMs / 1000} s after its last renewal ` +
            '(or clear it now with `npx kgc migrate --unlock`).',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Fails with MIGRATION_LOCKED when another runner took the lock over (this one stalled). */
  assertHeld(): void {
    if (this.lostTo !== undefined) {
      throw new KgcError(
        ErrorCode.MIGRATION_LOCKED,
        `This runner lost the migration lock (${this.lostTo}); it stopped before its next statement. Run \`npx kgc migrate\` again.`,
      );
    }
  }

  async release(): Promise<void> {
    clearInterval(this.renewer);
    this.renewer = undefined;
    await this.db.write((tx) =>
      tx.run('MATCH (l:__Neo4jMigrationsLock {id: $id}) DELETE l', { id: this.id }),
    );
  }

  /** Removes a lock left by a runner that died; returns how many were removed. */
  static async forceUnlock(db: Database, chain: string): Promise<number> {
    const result = await db.write((tx) =>
      tx.run('MATCH (l:__Neo4jMigrationsLock {name: $name}) DELETE l RETURN count(*) AS n', {
        name: chain,
      }),
    );
    return Number(result.records[0]?.get('n') ?? 0);
  }

  private async tryCreate(): Promise<boolean> {
    try {
      await this.db.write((tx) =>
        tx.run(
          `CREATE (:__Neo4jMigrationsLock {id: $id, name: $name, owner: $owner, lockedAt: datetime(),
                   expiresAt: datetime() + duration({milliseconds: $ttl})})`,
          { id: this.id, name: this.chain, owner: this.owner, ttl: this.ttlMs },
        ),
      );
      return true;
    } catch (error) {
      if (error instanceof KgcError && error.code === ErrorCode.CONSTRAINT_VIOLATION) return false;
      throw error;
    }
  }

  /** Deletes `stale` if it is still that same expired lock (a renewal in between keeps it). */
  private async removeStale(stale: Holder): Promise<boolean> {
    const result = await this.db.write((tx) =>
      tx.run(
        `MATCH (l:__Neo4jMigrationsLock {name: $name, id: $id})
         WHERE ${EXPIRES} < datetime()
         DELETE l RETURN count(*) AS n`,
        { name: this.chain, id: stale.id, ttl: this.ttlMs },
      ),
    );
    return Number(result.records[0]?.get('n') ?? 0) > 0;
  }

  /** Renews every third of the TTL; a renewal that finds the lock gone marks it lost. */
  private startRenewing(): void {
    this.renewer = setInterval(() => void this.renew(), Math.max(50, this.ttlMs / 3));
    this.renewer.unref();
  }

  private async renew(): Promise<void> {
    try {
      const result = await this.db.write((tx) =>
        tx.run(
          `MATCH (l:__Neo4jMigrationsLock {id: $id})
           SET l.expiresAt = datetime() + duration({milliseconds: $ttl})
           RETURN count(l) AS n`,
          { id: this.id, ttl: this.ttlMs },
        ),
      );
      if (Number(result.records[0]?.get('n') ?? 0) === 0 && this.renewer !== undefined) {
        this.lostTo = 'it expired and another runner took it over';
        this.log(`The migration lock of ${this.owner} was taken over by another runner.`);
        clearInterval(this.renewer);
      }
    } catch (error) {
      // The next renewal tries again; the lock lasts a whole TTL, three renewals.
      this.log(
        `Renewing the migration lock failed: ${error instanceof Error ? error.message : error}`,
      );
    }
  }

  private async holder(): Promise<Holder | undefined> {
    const result = await this.db.read((tx) =>
      tx.run(
        `MATCH (l:__Neo4jMigrationsLock {name: $name})
         RETURN l.id AS id, l.owner AS owner, toString(l.lockedAt) AS lockedAt,
                toString(${EXPIRES}) AS expiresAt, ${EXPIRES} < datetime() AS expired`,
        { name: this.chain, ttl: this.ttlMs },
      ),
    );
    const record = result.records[0];
    if (!record) return undefined;
    return {
      id: String(record.get('id')),
      owner: String(record.get('owner') ?? 'an unknown runner'),
      lockedAt: String(record.get('lockedAt')),
      expiresAt: String(record.get('expiresAt')),
      expired: record.get('expired') === true,
    };
  }
}
