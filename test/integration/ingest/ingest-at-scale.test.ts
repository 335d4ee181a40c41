import fs from 'node:fs';
import path from 'node:path';
import { acceptPredictions, Database, LocalNeo4j, MigrationRunner } from '../../../src/graph';
import { SOURCE_PARAMS } from '../../../src/graph/predictions/provenance';
import * as queries from '../../../src/graph/triples/ingest-queries';
import { exportDenseGraph } from '../../../src/export';
import { ingestFile, type IngestSummary } from '../../../src/ingest';
import { REPO_ROOT } from '../../../src/repo-root';
import { newTestDir, testNeo4j } from '../../support/test-neo4j';
import { powerLawGraph, writeTriples, type Triple } from '../../support/power-law-graph';

/**
 * The front door at a user's size, on a store of its own: its plan cache starts empty, as on a
 * fresh `kgc neo4j start`, so every ingest query is first planned against a store with almost
 * no relationships, which is where plans go bad. 300,000 edges over 100,000 entities with Zipf
 * hubs (the largest the tail of ~25,000 edges) and 4% repeated lines. Healthy, the whole file
 * takes about a minute and a half on 2 cores; each step prints its rate.
 */
const EDGES = 300_000;
const MINUTES = 60_000;

/** Operators that read more than the rows' own endpoints: a scan, or an expand from one end. */
const UNBOUNDED = /Scan|Expand\(All\)|HashJoin|CartesianProduct.*Expand\(All\)/;

interface PlanNode {
  operatorType: string;
  children: PlanNode[];
}

function operators(plan: PlanNode): string[] {
  return [plan.operatorType.replace(/@.*$/, ''), ...plan.children.flatMap(operators)];
}

/** The operators Neo4j plans for each ingest query now (EXPLAIN: nothing runs). */
async function ingestPlans(db: Database): Promise<Record<string, string[]>> {
  const rows: Triple[] = [['p:1', 'r0', 'p:0']];
  const plans: Record<string, string[]> = {};
  const statements: [string, string, Record<string, unknown>][] = [
    ['MERGE_ENTITIES', queries.MERGE_ENTITIES, { ids: ['p:0'] }],
    ['LOCK_HEADS', queries.LOCK_HEADS, { ids: ['p:1'] }],
    ['CREATE_MISSING_EDGES', queries.CREATE_MISSING_EDGES, { rows }],
    [
      'CONFIRM_ACCEPTED_PREDICTIONS',
      queries.CONFIRM_ACCEPTED_PREDICTIONS,
      { rows, ...SOURCE_PARAMS },
    ],
    ['COUNT_MISSING_ENDPOINTS', queries.COUNT_MISSING_ENDPOINTS, { rows }],
  ];
  for (const [name, query, params] of statements) {
    const result = await db.read((tx) => tx.run(`EXPLAIN ${query}`, params));
    plans[name] = operators(result.summary.plan as unknown as PlanNode);
  }
  return plans;
}

function expectPinned(plans: Record<string, string[]>): void {
  for (const [name, ops] of Object.entries(plans)) {
    const loose = ops.filter((op) => UNBOUNDED.test(op));
    // The name in the message says which query's plan went loose.
    expect({ name, loose }).toEqual({ name, loose: [] });
    // Every entity is found through the id index, never by walking from another node.
    expect({ name, seeks: ops.some((op) => op.startsWith('NodeUniqueIndexSeek')) }).toEqual({
      name,
      seeks: true,
    });
  }
}

function report(step: string, summary: IngestSummary): void {
  const rate = Math.round(summary.triples / summary.seconds);
  process.stdout.write(
    `ingest at scale: ${step}: ${summary.triples} lines in ${summary.seconds.toFixed(1)} s ` +
      `(${rate} lines/s), ${summary.written} written, ${summary.alreadyPresent} present, ` +
      `${summary.confirmed} confirmed\n`,
  );
}

describe("ingest at a user's size into a fresh store", () => {
  const dir = newTestDir();
  const files = path.join(dir, 'files');
  const graph = powerLawGraph({ edges: EDGES, entities: 100_000, relations: 20, seed: 56 });
  let server: LocalNeo4j;
  let db: Database;

  beforeAll(async () => {
    fs.mkdirSync(files, { recursive: true });
    // The product's defaults for a local server (KGC_NEO4J_HEAP / KGC_NEO4J_PAGECACHE).
    server = testNeo4j(dir, { heap: '1g', pageCache: '512m' });
    db = new Database(await server.start(), { maxRetrySeconds: 10, connectTimeoutMs: 5000 });
    await new MigrationRunner(db, { dir: path.join(REPO_ROOT, 'migrations') }).migrate();
  }, 5 * MINUTES);

  afterAll(async () => {
    await db?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 2 * MINUTES);

  it('a first small file plans every ingest query on a store with no edges, and no plan scans or expands from one end', async () => {
    // The first 200 lines twice: the second time every edge is present, so the confirm and
    // endpoint passes run (and are planned) too.
    const small = writeTriples(path.join(files, 'small.tsv'), graph.lines.slice(0, 200));
    await ingestFile(db, { file: small });
    expect(await ingestFile(db, { file: small })).toMatchObject({ written: 0 });
    expectPinned(await ingestPlans(db));
  });

  it(
    '300,000 power-law edges: every one written with no batch split, and exported back exactly',
    async () => {
      const big = writeTriples(path.join(files, 'big.tsv'), graph.lines);
      const summary = await ingestFile(db, { file: big });
      report('fresh store', summary);
      expect(summary).toMatchObject({ triples: EDGES, failed: 0, skipped: 0 });
      expect(summary.written + summary.alreadyPresent).toBe(EDGES);
      expect(summary.splits).toBe(0);
      const started = Date.now();
      const exported = await exportDenseGraph(db);
      process.stdout.write(
        `ingest at scale: export: ${exported.heads.length} edges in ${Date.now() - started} ms\n`,
      );
      const keys = new Set<string>();
      for (let i = 0; i < exported.heads.length; i++) {
        keys.add(
          [
            exported.entities[exported.heads[i] as number],
            exported.relationNames[exported.relations[i] as number],
            exported.entities[exported.tails[i] as number],
          ].join('\u0000'),
        );
      }
      expect(exported.heads.length).toBe(graph.distinct.size);
      expect(keys).toEqual(graph.distinct);
    },
    12 * MINUTES,
  );

  it(
    're-ingesting the same file is a no-op',
    async () => {
      const summary = await ingestFile(db, { file: path.join(files, 'big.tsv') });
      report('re-ingest', summary);
      expect(summary).toMatchObject({ triples: EDGES, written: 0, alreadyPresent: EDGES });
      expect(summary.splits).toBe(0);
    },
    12 * MINUTES,
  );

  it(
    'into the warm store that holds accepted predictions: they turn into facts, new edges are written',
    async () => {
      // Accepted predictions between hubs and others, then a file of 50,000 more edges that
      // repeats them, repeats known edges and adds new ones.
      const more = powerLawGraph({ edges: 50_000, entities: 100_000, relations: 20, seed: 57 });
      const known = new Set(graph.lines.flatMap(([h, , t]) => [h, t]));
      const fresh = [...more.distinct].filter((k) => !graph.distinct.has(k));
      // Predictions are between entities the graph holds.
      const predicted = fresh
        .map((k) => k.split('\u0000') as Triple)
        .filter(([h, , t]) => known.has(h) && known.has(t))
        .slice(0, 500);
      await acceptPredictions(
        db,
        predicted.map(([head, relation, tail]) => ({ head, relation, tail, score: null })),
        'ingest-at-scale',
      );
      const file = writeTriples(path.join(files, 'more.tsv'), [
        ...more.lines,
        ...graph.lines.slice(0, 10_000),
      ]);
      const summary = await ingestFile(db, { file });
      report('warm store', summary);
      expect(summary).toMatchObject({ confirmed: predicted.length, failed: 0 });
      expect(summary.written).toBe(fresh.length - predicted.length);
      expect(summary.splits).toBe(0);
      expectPinned(await ingestPlans(db));
    },
    12 * MINUTES,
  );
});
