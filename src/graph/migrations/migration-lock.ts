import os from 'node:os';
import crypto from 'node:crypto';
import { ErrorCode, KgcError } from '../../errors';
import type { Database } from '../database';

/**
 * A lock node guarded by a uniqueness constraint: the second runner's CREATE fails, so it waits.
 * Mirrors neo4j-migrations' `:__Neo4jMigrationsLock`.
 */
export class MigrationLock {
  private readonly id = crypto.randomUUID();

  constructor(
    private readonly db: Database,
    private readonly chain: string,
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

  async acquire(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.db.write((tx) =>
          tx.run(
            'CREATE (:__Neo4jMigrationsLock {id: $id, name: $name, owner: $owner, lockedAt: datetime()})',
            { id: this.id, name: this.chain, owner: `${os.hostname()}:${process.pid}` },
          ),
        );
        return;
      } catch (error) {
        if (!(error instanceof KgcError && error.code === ErrorCode.CONSTRAINT_VIOLATION))
          throw error;
      }
      if (Date.now() > deadline) {
        const holder = await this.holder();
        throw new KgcError(
          ErrorCode.MIGRATION_LOCKED,
          `Migrations are locked by ${holder}. If no runner is active, clear it with \`npx kgc migrate --unlock\`.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async release(): Promise<void> {
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

  private async holder(): Promise<string> {
    const result = await this.db.read((tx) =>
      tx.run(
        'MATCH (l:__Neo4jMigrationsLock {name: $name}) RETURN l.owner AS owner, toString(l.lockedAt) AS at',
        { name: this.chain },
      ),
    );
    const record = result.records[0];
    return record ? `${record.get('owner')} since ${record.get('at')}` : 'another runner';
  }
}
