import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, MigrationLock, MigrationRunner } from '../../../src/graph';
import { ErrorCode } from '../../../src/errors';
import { testDatabase, uniqueId } from '../../support/test-database';

/** A migrations folder whose statements touch only this test's own label. */
function migrationsFor(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-mig-'));
  fs.writeFileSync(
    path.join(dir, 'V0001__create_index.cypher'),
    `CREATE INDEX ${label}_x IF NOT EXISTS FOR (n:${label}) ON (n.x);\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'V0002__seed.cypher'),
    `CREATE (:${label} {x: 1});\nCREATE (:${label} {x: 2});\n`,
  );
  return dir;
}

async function countOf(db: Database, label: string): Promise<number> {
  const result = await db.read((tx) => tx.run(`MATCH (n:${label}) RETURN count(n) AS n`));
  return Number(result.records[0]?.get('n'));
}

async function appliedCount(db: Database, chain: string): Promise<number> {
  const result = await db.read((tx) =>
    tx.run(
      `MATCH (m:__Neo4jMigration {chain: $chain}) WHERE m.version <> 'BASELINE' RETURN count(m) AS n`,
      { chain },
    ),
  );
  return Number(result.records[0]?.get('n'));
}

describe('MigrationRunner on a real Neo4j', () => {
  let db: Database;
  beforeAll(() => {
    db = testDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('applies each migration once, in order, and nothing on a re-run', async () => {
    const label = uniqueId('Mig');
    const chain = uniqueId('chain');
    const dir = migrationsFor(label);
    const runner = new MigrationRunner(db, { dir, chain });

    expect((await runner.status()).map((s) => s.state)).toEqual(['pending', 'pending']);
    await expect(runner.assertUpToDate()).rejects.toMatchObject({
      code: ErrorCode.MIGRATIONS_PENDING,
      message: expect.stringContaining('V0001__create_index.cypher, V0002__seed.cypher'),
    });

    const applied = await runner.migrate();
    expect(applied.map((m) => m.file)).toEqual([
      'V0001__create_index.cypher',
      'V0002__seed.cypher',
    ]);
    expect(await countOf(db, label)).toBe(2);

    expect(await runner.migrate()).toEqual([]);
    expect(await countOf(db, label)).toBe(2);
    expect(await appliedCount(db, chain)).toBe(2);
    await expect(runner.assertUpToDate()).resolves.toBeUndefined();

    const chainOrder = await db.read((tx) =>
      tx.run(
        `MATCH p = (:__Neo4jMigration {chain: $chain, version: 'BASELINE'})-[:MIGRATED_TO*]->(last)
         WHERE NOT (last)-[:MIGRATED_TO]->()
         RETURN [n IN nodes(p) | n.version] AS versions`,
        { chain },
      ),
    );
    expect(chainOrder.records[0]?.get('versions')).toEqual(['BASELINE', '0001', '0002']);
  });

  it('refuses an applied migration that was changed afterwards', async () => {
    const label = uniqueId('Mig');
    const chain = uniqueId('chain');
    const dir = migrationsFor(label);
    await new MigrationRunner(db, { dir, chain }).migrate();

    fs.writeFileSync(path.join(dir, 'V0002__seed.cypher'), `CREATE (:${label} {x: 3});\n`);
    const runner = new MigrationRunner(db, { dir, chain });
    await expect(runner.migrate()).rejects.toMatchObject({
      code: ErrorCode.MIGRATION_CHECKSUM_MISMATCH,
      message: expect.stringContaining('V0002__seed.cypher was changed after it was applied'),
    });
    await expect(runner.status()).rejects.toMatchObject({
      code: ErrorCode.MIGRATION_CHECKSUM_MISMATCH,
    });
    expect(await countOf(db, label)).toBe(2);
  });

  it('applies each migration once when two runners start together', async () => {
    const label = uniqueId('Mig');
    const chain = uniqueId('chain');
    const dir = migrationsFor(label);
    const second = testDatabase();
    try {
      const results = await Promise.all([
        new MigrationRunner(db, { dir, chain }).migrate(),
        new MigrationRunner(second, { dir, chain }).migrate(),
      ]);
      expect(results[0].length + results[1].length).toBe(2);
    } finally {
      await second.close();
    }
    expect(await countOf(db, label)).toBe(2);
    expect(await appliedCount(db, chain)).toBe(2);
  });

  /** A lock of `chain` as another runner would have left it. */
  async function foreignLock(chain: string, owner: string, expiresInMs: number | null) {
    await MigrationLock.ensureConstraint(db);
    await db.write((tx) =>
      tx.run(
        `CREATE (:__Neo4jMigrationsLock {id: randomUUID(), name: $chain, owner: $owner,
                 lockedAt: datetime() - duration({minutes: 10}),
                 expiresAt: CASE WHEN $ms IS NULL THEN null
                                 ELSE datetime() + duration({milliseconds: $ms}) END})`,
        { chain, owner, ms: expiresInMs },
      ),
    );
  }

  async function lockOwners(chain: string): Promise<string[]> {
    const result = await db.read((tx) =>
      tx.run('MATCH (l:__Neo4jMigrationsLock {name: $chain}) RETURN l.owner AS owner', { chain }),
    );
    return result.records.map((r) => String(r.get('owner')));
  }

  it('takes over a lock that expired (its runner died), saying so', async () => {
    const label = uniqueId('Mig');
    const chain = uniqueId('chain');
    await foreignLock(chain, 'dead-host:4242', -5000);
    const lines: string[] = [];
    const runner = new MigrationRunner(db, {
      dir: migrationsFor(label),
      chain,
      lockTimeoutMs: 60_000,
      log: (line) => lines.push(line),
    });
    const started = Date.now();
    expect(await runner.migrate()).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(lines.join('\n')).toMatch(/Taking over the migration lock of dead-host:4242 .*expired/);
    expect(await countOf(db, label)).toBe(2);
    expect(await lockOwners(chain)).toEqual([]);
  });

  it('takes over a lock from before expiries once its time to live has passed', async () => {
    const label = uniqueId('Mig');
    const chain = uniqueId('chain');
    await foreignLock(chain, 'old-version:1', null); // taken 10 minutes ago, no expiry
    const runner = new MigrationRunner(db, { dir: migrationsFor(label), chain });
    expect(await runner.migrate()).toHaveLength(2);
  });

  it('refuses with MIGRATION_LOCKED while another owner holds a live lock', async () => {
    const label = uniqueId('Mig');
    const chain = uniqueId('chain');
    await foreignLock(chain, 'live-host:77', 60_000);
    const runner = new MigrationRunner(db, {
      dir: migrationsFor(label),
      chain,
      lockTimeoutMs: 500,
    });
    await expect(runner.migrate()).rejects.toMatchObject({
      code: ErrorCode.MIGRATION_LOCKED,
      message: expect.stringContaining('locked by live-host:77 since'),
    });
    expect(await countOf(db, label)).toBe(0);
    expect(await lockOwners(chain)).toEqual(['live-host:77']);
    await MigrationLock.forceUnlock(db, chain);
  });

  it('renews its lock while a migration outlasts the time to live', async () => {
    const label = uniqueId('Mig');
    const chain = uniqueId('chain');
    const dir = migrationsFor(label);
    // The first statement waits on a node this test holds, far longer than the lock's TTL.
    await db.write((tx) => tx.run(`CREATE (:${label}Gate {x: 1})`));
    fs.writeFileSync(
      path.join(dir, 'V0001__create_index.cypher'),
      `MATCH (g:${label}Gate) SET g.x = 2;\n`,
    );
    const holder = db.openSession('WRITE');
    const gate = holder.beginTransaction();
    await gate.run(`MATCH (g:${label}Gate) SET g.x = 3`);
    const ttl = { lockTtlMs: 600 };
    const first = new MigrationRunner(db, { dir, chain, ...ttl }).migrate();
    try {
      await new Promise((resolve) => setTimeout(resolve, 2000)); // > 3 TTLs
      const second = new MigrationRunner(db, { dir, chain, ...ttl, lockTimeoutMs: 300 });
      await expect(second.migrate()).rejects.toMatchObject({ code: ErrorCode.MIGRATION_LOCKED });
    } finally {
      await gate.rollback();
      await holder.close();
    }
    expect((await first).map((m) => m.file)).toEqual([
      'V0001__create_index.cypher',
      'V0002__seed.cypher',
    ]);
    expect(await appliedCount(db, chain)).toBe(2);
  });

  it('stops before its next migration when asked (a signal), releasing the lock', async () => {
    const label = uniqueId('Mig');
    const chain = uniqueId('chain');
    const dir = migrationsFor(label);
    await db.write((tx) => tx.run(`CREATE (:${label}Gate {x: 1})`));
    fs.writeFileSync(
      path.join(dir, 'V0001__create_index.cypher'),
      `MATCH (g:${label}Gate) SET g.x = 2;\n`,
    );
    const holder = db.openSession('WRITE');
    const gate = holder.beginTransaction();
    await gate.run(`MATCH (g:${label}Gate) SET g.x = 3`);
    const runner = new MigrationRunner(db, { dir, chain });
    const running = runner.migrate();
    const outcome = running.then(
      () => undefined,
      (error: unknown) => error,
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 500)); // V0001 is under way
      runner.stop('SIGTERM');
    } finally {
      await gate.rollback();
      await holder.close();
    }
    expect(await outcome).toMatchObject({
      code: ErrorCode.MIGRATION_STOPPED,
      message: expect.stringContaining('(SIGTERM) before V0002__seed.cypher'),
    });
    expect(await appliedCount(db, chain)).toBe(1);
    expect(await countOf(db, label)).toBe(0);
    expect(await lockOwners(chain)).toEqual([]);
    expect(await new MigrationRunner(db, { dir, chain }).migrate()).toHaveLength(1);
  });

  it('reports the project migrations as applied by the test setup', async () => {
    const runner = new MigrationRunner(db, { dir: path.resolve(__dirname, '../../../migrations') });
    const status = await runner.status();
    expect(status.length).toBeGreaterThanOrEqual(4);
    expect(status.every((s) => s.state === 'applied')).toBe(true);
  });
});
