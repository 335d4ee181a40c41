import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { writeScaleGraph } from '../../../bench/scale/write-scale-graph';
import { ErrorCode } from '../../../src/errors';
import { Database, MigrationRunner } from '../../../src/graph';
import { ingestFile } from '../../../src/ingest';
import { bulkIngest, type BulkIngestOptions } from '../../../src/ingest/bulk';
import { readBulkMarker, writeBulkMarker } from '../../../src/ingest/bulk/bulk-marker';
import { readState } from '../../../src/graph/local/instance-state';
import { newTestDir, testNeo4j } from '../../support/test-neo4j';
import { awkwardRelations, tempDir } from './ingest-fixtures';

// A bulk load stops and starts its server: this file runs its own, never the run's shared one.
jest.setTimeout(600_000);

const MIGRATIONS = path.resolve(__dirname, '../../../migrations');
const CLIENT = { maxRetrySeconds: 10, connectTimeoutMs: 5000 };

interface Snapshot {
  nodes: string[];
  edges: string[];
}

/** Every node with its labels and properties, every relationship with its properties. */
async function snapshot(db: Database): Promise<Snapshot> {
  const nodes = await db.read((tx) =>
    tx.run(`MATCH (n) WHERE NOT n:__Neo4jMigration
            RETURN n.id AS id, labels(n) AS labels, properties(n) AS props`),
  );
  const edges = await db.read((tx) =>
    tx.run(`MATCH (h)-[r]->(t) WHERE type(r) <> 'MIGRATED_TO'
            RETURN h.id AS h, type(r) AS type, t.id AS t, properties(r) AS props`),
  );
  const json = (value: unknown) =>
    JSON.stringify(value, (_k, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
        : v,
    );
  return {
    nodes: nodes.records
      .map((r) => json([r.get('id'), [...(r.get('labels') as string[])].sort(), r.get('props')]))
      .sort(),
    edges: edges.records
      .map((r) => json([r.get('h'), r.get('type'), r.get('t'), r.get('props')]))
      .sort(),
  };
}

describe('bulkIngest (kgc ingest --bulk) into its own local Neo4j', () => {
  const instanceDir = newTestDir();
  const server = testNeo4j(instanceDir);
  const dir = tempDir();
  const graphDir = path.join(dir, 'graph');
  let db: Database;
  let files: string[];
  let labels: string;
  let awkward: string;
  let transactional: Snapshot;

  const connect = async () => {
    await db?.close();
    const target = server.connection();
    if (!target) throw new Error('the test server is not running');
    db = new Database(target, CLIENT);
    return db;
  };
  const wipe = async () => {
    await db.autoCommit('MATCH (n:Entity) CALL (n) { DETACH DELETE n } IN TRANSACTIONS');
    expect((await snapshot(db)).nodes).toEqual([]);
  };
  const options = (more: Partial<BulkIngestOptions> = {}): BulkIngestOptions => ({
    files,
    labels,
    migrationsDir: MIGRATIONS,
    client: CLIENT,
    serverOwnerPid: process.pid,
    ...more,
  });

  beforeAll(async () => {
    const generated = writeScaleGraph(graphDir, { entities: 400, edges: 4000, seed: 11 });
    const validGz = path.join(graphDir, 'valid.txt.gz');
    fs.writeFileSync(validGz, gzipSync(fs.readFileSync(generated.splits.valid)));
    // Ids, relation names and labels that must survive neo4j-admin's CSV as they survive Cypher.
    const ids = ['a "quoted" id', 'comma, id', 'back\\slash', ' padded ', 'ünï 関係 😀', '123'];
    awkward = path.join(dir, 'awkward.tsv');
    fs.writeFileSync(
      awkward,
      awkwardRelations('bulk')
        .map((rel, i) => `${ids[i % ids.length]}\t${rel}\t${ids[(i + 1) % ids.length]}\n`)
        .join('') + `${ids[0]}\t${awkwardRelations('bulk')[0]}\t${ids[1]}\n`,
    );
    const nt = path.join(dir, 'facts.nt');
    fs.writeFileSync(
      nt,
      [
        '<http://x/a> <http://x/knows> <http://x/b> .',
        '<http://x/a> <http://x/name> "first" .',
        '<http://x/a> <http://x/name> "Alice"@en .',
        '<http://x/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://schema.org/Person> .',
        '<http://x/only> <http://x/name> "no edge" .',
      ].join('\n') + '\n',
    );
    labels = path.join(dir, 'labels.tsv');
    fs.writeFileSync(
      labels,
      fs.readFileSync(generated.labels, 'utf8') +
        `${ids[0]}\tOdd\`label\` x;Ünïcødé\n123\tNumberish\nlabel-only\tLonely\n`,
    );
    files = [generated.splits.train, validGz, generated.splits.test, awkward, nt];

    await server.start(process.pid);
    await connect();
    await new MigrationRunner(db, { dir: MIGRATIONS }).migrate();
  });

  afterAll(async () => {
    await db?.close();
    await server.stop();
    fs.rmSync(instanceDir, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a database that holds entities, changing nothing', async () => {
    for (const file of files) await ingestFile(db, { file });
    await ingestFile(db, { file: labels, labels: true });
    transactional = await snapshot(db);
    expect(transactional.edges.length).toBe(4000 + 6 + 1);
    const pid = readState(instanceDir)?.pid;

    const refused = await bulkIngest(server, options()).catch((e: Error) => e);
    expect(refused).toMatchObject({ code: ErrorCode.BAD_USER_INPUT });
    expect((refused as Error).message).toMatch(
      /^The local database is not empty \(410 entities, 0 other nodes, 4,007 relationships\); nothing was changed/,
    );
    expect(readState(instanceDir)?.pid).toBe(pid); // not restarted
    expect(await snapshot(db)).toEqual(transactional);
  });

  it('fails on a bad line with file and line, before touching the server', async () => {
    await wipe();
    const pid = readState(instanceDir)?.pid;
    const bad = path.join(dir, 'bad.tsv');
    fs.writeFileSync(bad, 'a\tr\tb\nc\tr\n');
    await expect(bulkIngest(server, options({ files: [...files, bad] }))).rejects.toMatchObject({
      code: ErrorCode.INGEST_INVALID_INPUT,
      message: expect.stringMatching(/^bad\.tsv:2: expected 3 tab-separated columns, found 2\./),
    });
    expect(readState(instanceDir)?.pid).toBe(pid);
    expect(await snapshot(db)).toEqual({ nodes: [], edges: [] });
    expect(fs.readdirSync(path.join(instanceDir, 'import'))).toEqual([]);
  });

  it('loads the graph the transactional ingest writes; --skip-invalid sends bad lines to rejects', async () => {
    const withBad = path.join(dir, 'awkward-with-bad.tsv');
    fs.writeFileSync(withBad, `${fs.readFileSync(awkward, 'utf8')}only\ttwo\n\tr\tx\n`);
    const rejects = path.join(dir, 'rejects.tsv');
    const phases: string[] = [];
    const summary = await bulkIngest(
      server,
      options({
        files: files.map((f) => (f === awkward ? withBad : f)),
        skipInvalid: true,
        rejectPath: undefined,
        onProgress: (p) => phases.push(p.phase),
      }),
    );
    await connect();
    expect(await snapshot(db)).toEqual(transactional);
    expect(summary).toMatchObject({ triples: 4008, edges: 4007, duplicates: 1, skipped: 2 });
    expect(summary.rejectFiles).toEqual([`${withBad}.rejects.tsv`]);
    expect(fs.readFileSync(`${withBad}.rejects.tsv`, 'utf8')).toBe(
      'line\treason\ttext\n8\texpected 3 tab-separated columns, found 2\tonly two\n' +
        '9\tempty head id\t r x\n',
    );
    expect(fs.existsSync(rejects)).toBe(false);
    expect([...new Set(phases)]).toEqual([
      'prepare',
      'stop',
      'import',
      'start',
      'migrate',
      'properties',
    ]);
    // The schema came after the import: every migration applied, the id constraint in place.
    const status = await new MigrationRunner(db, { dir: MIGRATIONS }).status();
    expect(status.every((m) => m.state === 'applied')).toBe(true);
    const constraints = await db.read((tx) => tx.run('SHOW CONSTRAINTS YIELD name'));
    expect(constraints.records.map((r) => r.get('name'))).toContain('entity_id_unique');
    expect(fs.readdirSync(path.join(instanceDir, 'import'))).toEqual([]);
  });

  it('finishes what a load killed mid-import left; after its import, heals and says so', async () => {
    await wipe();
    const importDir = path.join(instanceDir, 'import');
    const finished = spawn('true');
    await new Promise((resolve) => finished.once('exit', resolve));
    const dead = finished.pid as number;
    const startedAt = new Date().toISOString();

    // Killed during its import: the server stopped, its import files left behind.
    await server.stop();
    const leftWork = fs.mkdtempSync(path.join(importDir, 'kgc-bulk-'));
    fs.writeFileSync(path.join(leftWork, 'nodes.csv'), 'id:ID\n');
    writeBulkMarker(importDir, { pid: dead, startedAt, phase: 'import', work: leftWork });
    const one = { files: [awkward], labels: undefined };
    const summary = await bulkIngest(server, options(one));
    expect(summary.recovered).toBe(
      `an earlier bulk load (pid ${dead}, started ${startedAt}) was killed during its import ` +
        '(the database was empty): imported again',
    );
    await connect();
    const loaded = await snapshot(db);
    expect(loaded.edges).toHaveLength(summary.edges);
    expect(fs.readdirSync(importDir)).toEqual([]);

    // Killed after its import, in its migrate step: the graph is kept, the server started and
    // migrated, this load refused.
    await server.stop();
    writeBulkMarker(importDir, {
      pid: dead,
      startedAt,
      phase: 'migrate',
      work: path.join(importDir, 'kgc-bulk-gone'),
    });
    const refused = await bulkIngest(server, options(one)).catch((e: Error) => e);
    expect(refused).toMatchObject({ code: ErrorCode.BAD_USER_INPUT });
    expect((refused as Error).message).toContain(
      'was killed after its import, in its migrate step: its graph is in the database',
    );
    expect(server.connection()).toBeDefined();
    await connect();
    expect(await snapshot(db)).toEqual(loaded);
    const status = await new MigrationRunner(db, { dir: MIGRATIONS }).status();
    expect(status.every((m) => m.state === 'applied')).toBe(true);
    expect(readBulkMarker(importDir)).toBeUndefined();

    // A load that still runs: refused, its marker left alone.
    const running = spawn('sleep', ['30']);
    try {
      const live = {
        pid: running.pid as number,
        startedAt,
        phase: 'prepare' as const,
        work: leftWork,
      };
      writeBulkMarker(importDir, live);
      await expect(bulkIngest(server, options(one))).rejects.toMatchObject({
        code: ErrorCode.JOB_LOCKED,
      });
      expect(readBulkMarker(importDir)).toEqual(live);
    } finally {
      running.kill();
      fs.rmSync(path.join(importDir, 'kgc-bulk.json'), { force: true });
    }
  });

  it('starts the server again and says so when the import fails', async () => {
    await wipe();
    const failed = await bulkIngest(
      server,
      options({ files: [awkward], labels: undefined, adminArgs: ['--format=no_such_format'] }),
    ).catch((e: Error) => e);
    expect(failed).toMatchObject({ code: ErrorCode.NEO4J_SETUP_FAILED });
    expect((failed as Error).message).toMatch(/^neo4j-admin database import failed \(exit \d+\)/);
    expect((failed as Error).message).toMatch(
      /Neo4j runs again, with the database empty as before\.$/,
    );
    await connect();
    expect(await snapshot(db)).toEqual({ nodes: [], edges: [] });
    const status = await new MigrationRunner(db, { dir: MIGRATIONS }).status();
    expect(status.every((m) => m.state === 'applied')).toBe(true);
  });
});
