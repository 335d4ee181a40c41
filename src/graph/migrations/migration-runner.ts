import os from 'node:os';
import { ErrorCode, KgcError } from '../../errors';
import type { Database } from '../database';
import { loadMigrationFiles, MigrationFile } from './migration-file';
import { MigrationLock } from './migration-lock';

export interface MigrationOptions {
  dir: string;
  /** Separates independent migration chains in one database (tests use unique chains). */
  chain?: string;
  lockTimeoutMs?: number;
  /** How long the lock outlives its last renewal (a runner that died); default 30 s. */
  lockTtlMs?: number;
  log?: (line: string) => void;
}

export interface MigrationStatus {
  version: string;
  description: string;
  file: string;
  state: 'applied' | 'pending';
  appliedAt?: string;
}

interface AppliedMigration {
  version: string;
  checksum: string;
  at: string;
}

/**
 * Applies `migrations/V*.cypher` once each, in order, recording a chain of `:__Neo4jMigration`
 * nodes linked by MIGRATED_TO (the neo4j-migrations layout) under a lock.
 */
export class MigrationRunner {
  private readonly chain: string;
  private readonly log: (line: string) => void;
  private stopReason: string | undefined;

  constructor(
    private readonly db: Database,
    private readonly options: MigrationOptions,
  ) {
    this.chain = options.chain ?? 'kgc';
    this.log = options.log ?? (() => undefined);
  }

  async status(): Promise<MigrationStatus[]> {
    const files = loadMigrationFiles(this.options.dir);
    const applied = await this.applied();
    this.validate(files, applied);
    return files.map((file) => {
      const done = applied.get(Number(file.version));
      return {
        version: file.version,
        description: file.description,
        file: file.file,
        state: done ? 'applied' : 'pending',
        appliedAt: done?.at,
      };
    });
  }

  /** Refuses to go on while migrations are pending; names them. */
  async assertUpToDate(): Promise<void> {
    const pending = (await this.status()).filter((entry) => entry.state === 'pending');
    if (pending.length > 0) {
      throw new KgcError(
        ErrorCode.MIGRATIONS_PENDING,
        `The database has pending migrations: ${pending.map((m) => m.file).join(', ')}. ` +
          'Apply them with `npx kgc migrate`.',
      );
    }
  }

  /**
   * Asks a running `migrate` to stop before its next migration (a signal): the one under way
   * finishes and is recorded, the lock is released, and migrate fails with MIGRATION_STOPPED.
   */
  stop(reason: string): void {
    this.stopReason = reason;
  }

  /** Before each migration: still ours to run (lock held, no stop asked). */
  private mayGoOn(lock: MigrationLock, next: string): void {
    lock.assertHeld();
    if (this.stopReason !== undefined) {
      throw new KgcError(
        ErrorCode.MIGRATION_STOPPED,
        `Migrations stopped (${this.stopReason}) before ${next}; the lock was released. ` +
          'Run `npx kgc migrate` again to apply the rest.',
      );
    }
  }

  /** Applies every pending migration; returns those this call applied. */
  async migrate(): Promise<MigrationFile[]> {
    const files = loadMigrationFiles(this.options.dir);
    await MigrationLock.ensureConstraint(this.db);
    const lock = new MigrationLock(this.db, this.chain, this.options.lockTtlMs, this.log);
    await lock.acquire(this.options.lockTimeoutMs ?? 60_000);
    try {
      // Read under the lock: another runner may have just applied some.
      const applied = await this.applied();
      this.validate(files, applied);
      const done: MigrationFile[] = [];
      for (const file of files.filter((f) => !applied.has(Number(f.version)))) {
        this.mayGoOn(lock, file.file);
        await this.apply(file, lock);
        done.push(file);
      }
      return done;
    } finally {
      await lock.release();
    }
  }

  private async apply(file: MigrationFile, lock: MigrationLock): Promise<void> {
    const started = Date.now();
    this.log(`Applying ${file.file}`);
    // Each statement in its own transaction: schema changes cannot share one with data writes.
    for (const statement of file.statements) {
      lock.assertHeld();
      try {
        await this.db.autoCommit(statement);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new KgcError(
          ErrorCode.MIGRATION_INVALID,
          `Migration ${file.file} failed: ${reason}`,
          {
            cause: error,
          },
        );
      }
    }
    lock.assertHeld();
    await this.db.write((tx) =>
      tx.run(
        `MERGE (b:__Neo4jMigration {chain: $chain, version: 'BASELINE'})
         WITH b
         OPTIONAL MATCH (b)-[:MIGRATED_TO*]->(last:__Neo4jMigration)
         WHERE NOT (last)-[:MIGRATED_TO]->()
         WITH coalesce(last, b) AS previous
         CREATE (previous)-[:MIGRATED_TO {at: datetime(), in: duration({milliseconds: $ms}), by: $by}]->
                (:__Neo4jMigration {chain: $chain, version: $version, description: $description,
                                    checksum: $checksum, type: 'CYPHER', source: $source})`,
        {
          chain: this.chain,
          version: file.version,
          description: file.description,
          checksum: file.checksum,
          source: file.file,
          ms: Date.now() - started,
          by: os.userInfo().username,
        },
      ),
    );
  }

  private async applied(): Promise<Map<number, AppliedMigration>> {
    const result = await this.db.read((tx) =>
      tx.run(
        `MATCH ()-[r:MIGRATED_TO]->(m:__Neo4jMigration {chain: $chain})
         RETURN m.version AS version, m.checksum AS checksum, toString(r.at) AS at`,
        { chain: this.chain },
      ),
    );
    const applied = new Map<number, AppliedMigration>();
    for (const record of result.records) {
      const version = String(record.get('version'));
      applied.set(Number(version), {
        version,
        checksum: record.get('checksum'),
        at: record.get('at'),
      });
    }
    return applied;
  }

  private validate(files: MigrationFile[], applied: Map<number, AppliedMigration>): void {
    const byVersion = new Map(files.map((file) => [Number(file.version), file]));
    for (const [version, record] of applied) {
      const file = byVersion.get(version);
      if (!file) {
        throw new KgcError(
          ErrorCode.MIGRATION_INVALID,
          `Migration ${record.version} is applied in the database but missing from ${this.options.dir}.`,
        );
      }
      if (file.checksum !== record.checksum) {
        throw new KgcError(
          ErrorCode.MIGRATION_CHECKSUM_MISMATCH,
          `Migration ${file.file} was changed after it was applied (checksum ${record.checksum} in the ` +
            `database, ${file.checksum} on disk): restore it and put the change in a new migration.`,
        );
      }
    }
  }
}
