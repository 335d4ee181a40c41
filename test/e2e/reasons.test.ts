import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exportDenseGraph } from '../../src/export';
import { Database, TripleWriter } from '../../src/graph';
import { resolveTrainingConfig, train } from '../../src/model';
import { GRAPH_FILE, mineRules, writeRules, writeVersionGraph } from '../../src/model/rules';
import type { Rule } from '../../src/model/rules';
import { startServer } from '../../src/server/start-server';
import { TINY } from '../support/lifecycle';
import { gql, MIGRATIONS } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

interface ReasonRow {
  kind: 'PATH' | 'SIMILAR_ENTITY';
  rule: {
    relation: string;
    body: { relation: string; inverse: boolean }[];
    support: number;
    confidence: number;
    text: string;
  } | null;
  edges: { head: string; relation: string; tail: string }[];
  similarity: number | null;
}

interface Row {
  entity: { id: string };
  reasons: ReasonRow[];
}

const WITH_REASONS = `query($entity: String!, $relation: String!, $k: Int, $direction: Direction) {
  missingLinks(entity: $entity, relation: $relation, k: $k, direction: $direction) {
    entity { id }
    reasons {
      kind similarity
      rule { relation body { relation inverse } support confidence text }
      edges { head relation tail }
    }
  }
}`;

const WITHOUT_REASONS = `query($entity: String!, $relation: String!) {
  missingLinks(entity: $entity, relation: $relation, k: 3) { entity { id } logit }
}`;

/**
 * Neo4j reads the server has made, counted where the read-duration metric is observed (the
 * server's `metrics`), without scraping /metrics: a scrape reads Neo4j itself (the staleness
 * gauges). Set when the suite's server starts.
 */
let reads: jest.SpyInstance | undefined;
async function readsSoFar(_url: string): Promise<number> {
  return Promise.resolve(reads?.mock.calls.length ?? 0);
}

async function readsSince(url: string, before: number): Promise<number> {
  return (await readsSoFar(url)) - before;
}

/**
 * Persons born in cities that lie in countries; a person's nationality is their birth city's
 * country for 4 in 5 persons: the planted rule born_in ∘ city_in ⇒ nationality (confidence 0.8).
 */
function plantedGraph(id: (name: string) => string, rel: (name: string) => string) {
  const triples: [string, string, string][] = [];
  const countryOf = (city: number) => city % 4;
  for (let c = 0; c < 12; c++) triples.push([id(`c${c}`), rel('city_in'), id(`k${countryOf(c)}`)]);
  for (let p = 0; p < 80; p++) {
    triples.push([id(`p${p}`), rel('born_in'), id(`c${p % 12}`)]);
    if (p % 5 !== 0) triples.push([id(`p${p}`), rel('nationality'), id(`k${countryOf(p % 12)}`)]);
  }
  return triples;
}

/**
 * Run twice: with the version's graph file (reasons searched in memory, confirmed in Neo4j) and
 * without it (an older version: reasons read from Neo4j directly). The answers are the same.
 */
describe.each([
  ['searched in the version graph', true],
  ['read from Neo4j (no graph file)', false],
])('Prediction.reasons over HTTP, against the live graph: %s', (_mode, withGraphFile) => {
  const tag = uniqueId(withGraphFile ? 'why' : 'whyq');
  const id = (name: string) => `${name}_${tag}`;
  const rel = (name: string) => `${name}_${tag}`;
  const modelDir = fs.mkdtempSync(path.join(os.tmpdir(), `kgc-model-${tag}-`));
  let db: Database;
  let server: Awaited<ReturnType<typeof startServer>>;
  let triples: [string, string, string][];
  let planted: Rule | undefined;
  const ask = async (variables: Record<string, unknown>) => {
    const result = await gql<{ missingLinks: Row[] }>(server.url, WITH_REASONS, variables);
    expect(result.errors).toBeUndefined();
    return result.data?.missingLinks ?? [];
  };
  const known = (edge: { head: string; relation: string; tail: string }) =>
    triples.some(([h, r, t]) => h === edge.head && r === edge.relation && t === edge.tail);

  beforeAll(async () => {
    db = testDatabase();
    triples = plantedGraph(id, rel);
    await new TripleWriter(db).writeEdges(triples);
    const graph = await exportDenseGraph(db, {
      relations: [rel('city_in'), rel('born_in'), rel('nationality')],
    });
    const all = Uint32Array.from(
      [...graph.heads.keys()].flatMap((i) => [
        graph.heads[i]!,
        graph.relations[i]!,
        graph.tails[i]!,
      ]),
    );
    await train(
      {
        entities: graph.entities,
        relations: graph.relationNames,
        train: all,
        valid: all.slice(0, 30),
        test: all.slice(0, 30),
      },
      resolveTrainingConfig('default', { ...TINY, evalEvery: 0 }),
      { outDir: modelDir },
    );
    const rules = await mineRules(graph);
    planted = rules.rules[rel('nationality')]?.find(
      (rule) =>
        rule.body.map((a) => `${a.relation}${a.inverse ? '-' : ''}`).join(' ') ===
        `${rel('born_in')} ${rel('city_in')}`,
    );
    // born_in keeps no rules: its suggestions must fall back to similar entities.
    delete rules.rules[rel('born_in')];
    writeRules(modelDir, rules);
    if (withGraphFile) await writeVersionGraph(graph, modelDir);
    // No fold-in: its background polls would add reads to the count the tests compare.
    const config = testServerConfig();
    server = await startServer(
      { ...config, foldIn: { ...config.foldIn, enabled: false } },
      { migrationsDir: MIGRATIONS, modelDir },
    );
    // Ready first: the start-up warm-up's own reads would add to the counts too.
    await server.warmedUp;
    reads?.mockRestore();
    reads = jest.spyOn(server.metrics, 'observeNeo4jRead');
  });

  afterAll(async () => {
    await server?.stop();
    await db?.write((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
    );
    await db?.close();
    fs.rmSync(modelDir, { recursive: true, force: true });
  });

  it('mined the planted rule with its support and confidence', () => {
    expect(fs.existsSync(path.join(modelDir, GRAPH_FILE))).toBe(withGraphFile);
    expect(planted).toMatchObject({ support: 64 });
    expect(planted?.confidence).toBeCloseTo(0.8, 5);
  });

  it('gives a missing edge the planted rule and a real path from head to tail', async () => {
    // p0's nationality is missing; its birth city c0 lies in k0.
    const rows = await ask({ entity: id('p0'), relation: rel('nationality'), k: 4 });
    const k0 = rows.find((row) => row.entity.id === id('k0')) as Row;
    expect(k0).toBeDefined();
    const path = k0.reasons.find(
      (r) =>
        r.kind === 'PATH' &&
        r.rule?.text ===
          `${rel('born_in')}(x,z) ∧ ${rel('city_in')}(z,y) ⇒ ${rel('nationality')}(x,y)`,
    ) as ReasonRow;
    expect(path).toBeDefined();
    expect(path.rule).toMatchObject({ support: 64, relation: rel('nationality') });
    expect(path.rule?.confidence).toBeCloseTo(0.8, 5);
    expect(path.similarity).toBeNull();
    expect(path.edges).toEqual([
      { head: id('p0'), relation: rel('born_in'), tail: id('c0') },
      { head: id('c0'), relation: rel('city_in'), tail: id('k0') },
    ]);
    expect(k0.reasons.length).toBeLessThanOrEqual(3);
    for (const reason of k0.reasons) {
      expect(reason.kind).toBe('PATH');
      expect(reason.edges.every(known)).toBe(true);
      expect(reason.edges[0]!.head === id('p0') || reason.edges[0]!.tail === id('p0')).toBe(true);
      const last = reason.edges[reason.edges.length - 1]!;
      expect(last.head === id('k0') || last.tail === id('k0')).toBe(true);
    }
  });

  it('finds the path from the suggested head for HEAD queries', async () => {
    const rows = await ask({
      entity: id('k0'),
      relation: rel('nationality'),
      k: 80,
      direction: 'HEAD',
    });
    const p0 = rows.find((row) => row.entity.id === id('p0')) as Row;
    expect(p0).toBeDefined();
    const path = p0.reasons.find(
      (r) => r.rule?.body.length === 2 && r.edges[0]!.relation === rel('born_in'),
    );
    expect(path?.edges).toEqual([
      { head: id('p0'), relation: rel('born_in'), tail: id('c0') },
      { head: id('c0'), relation: rel('city_in'), tail: id('k0') },
    ]);
  });

  it('falls back to known edges of similar entities where no rule fires', async () => {
    // The model may rank any entity as a birthplace; a city has known born_in edges to compare.
    const rows = await ask({ entity: id('p1'), relation: rel('born_in'), k: 30 });
    const cities = rows.filter((row) => /^c\d+_/.test(row.entity.id));
    expect(cities.length).toBeGreaterThan(0);
    for (const row of cities) {
      expect(row.reasons.length).toBeGreaterThan(0);
      expect(row.reasons.length).toBeLessThanOrEqual(3);
      const similarities = row.reasons.map((r) => r.similarity as number);
      expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
      for (const reason of row.reasons) {
        expect(reason.kind).toBe('SIMILAR_ENTITY');
        expect(reason.rule).toBeNull();
        expect(reason.similarity).toBeGreaterThanOrEqual(-1);
        expect(reason.similarity).toBeLessThanOrEqual(1);
        expect(reason.edges).toHaveLength(1);
        const [edge] = reason.edges;
        // (h', born_in, suggested city): a real edge of another person.
        expect(edge).toMatchObject({ relation: rel('born_in'), tail: row.entity.id });
        expect(edge!.head).not.toBe(id('p1'));
        expect(known(edge!)).toBe(true);
      }
    }
    // An entity with no known edge of the relation has nothing to compare: no reasons.
    for (const row of rows.filter((r) => !/^c\d+_/.test(r.entity.id)))
      expect(row.reasons).toEqual([]);
    // Mirrored for heads: (suggested person, born_in, c') with c' like the query's city.
    const heads = await ask({
      entity: id('c1'),
      relation: rel('born_in'),
      k: 30,
      direction: 'HEAD',
    });
    const persons = heads.filter((row) => /^p\d+_/.test(row.entity.id));
    expect(persons.length).toBeGreaterThan(0);
    for (const row of persons) {
      expect(row.reasons.length).toBeGreaterThan(0);
      for (const reason of row.reasons) {
        expect(reason.edges[0]).toMatchObject({ head: row.entity.id, relation: rel('born_in') });
        expect(reason.edges[0]!.tail).not.toBe(id('c1'));
        expect(known(reason.edges[0]!)).toBe(true);
      }
    }
  });

  it('reads the graph once more for all reasons of a request, and not at all when none are asked', async () => {
    let before = await readsSoFar(server.url);
    const plain = await gql(server.url, WITHOUT_REASONS, {
      entity: id('p5'),
      relation: rel('nationality'),
    });
    expect(plain.errors).toBeUndefined();
    expect(await readsSince(server.url, before)).toBe(1);

    before = await readsSoFar(server.url);
    const batch = await gql<{ missingLinksBatch: Row[][] }>(
      server.url,
      `query($q: [MissingLinksInput!]!) {
        missingLinksBatch(queries: $q) { entity { id } reasons { kind edges { head } } }
      }`,
      {
        q: [
          { entity: id('p0'), relation: rel('nationality'), k: 4 },
          { entity: id('p1'), relation: rel('born_in'), k: 5 },
          { entity: id('k1'), relation: rel('nationality'), k: 5, direction: 'HEAD' },
        ],
      },
    );
    expect(batch.errors).toBeUndefined();
    expect(batch.data?.missingLinksBatch.flat().length).toBe(14);
    expect(batch.data?.missingLinksBatch[0]!.some((row) => row.reasons.length > 0)).toBe(true);
    // One known-answers read for the batch, one reasons read for its 14 predictions.
    expect(await readsSince(server.url, before)).toBe(2);
  });

  const edgeIs = (h: string, r: string, t: string) => (edge: ReasonRow['edges'][number]) =>
    edge.head === id(h) && edge.relation === rel(r) && edge.tail === id(t);
  const allReasons = (rows: Row[]) => rows.flatMap((row) => row.reasons);

  it('never gives an edge deleted since training as a reason', async () => {
    // p10's nationality is missing; its birth city c10 lies in k2.
    const before = await ask({ entity: id('p10'), relation: rel('nationality'), k: 96 });
    const k2 = before.find((row) => row.entity.id === id('k2')) as Row;
    expect(k2.reasons.some((r) => r.edges.some(edgeIs('p10', 'born_in', 'c10')))).toBe(true);
    await db.write((tx) =>
      tx.run('MATCH (:Entity {id: $h})-[e]->(:Entity {id: $t}) WHERE type(e) = $r DELETE e', {
        h: id('p10'),
        r: rel('born_in'),
        t: id('c10'),
      }),
    );
    try {
      const after = await ask({ entity: id('p10'), relation: rel('nationality'), k: 96 });
      expect(after.length).toBeGreaterThan(0);
      expect(allReasons(after).some((r) => r.edges.some(edgeIs('p10', 'born_in', 'c10')))).toBe(
        false,
      );
      for (const reason of allReasons(after)) expect(reason.edges.every(known)).toBe(true);
    } finally {
      await new TripleWriter(db).writeEdges([[id('p10'), rel('born_in'), id('c10')]]);
    }
  });

  it(
    withGraphFile
      ? 'rests on the version graph: an edge added since training is not a reason yet'
      : 'walks the graph of now: an edge added since training is a reason at once',
    async () => {
      // p15 was born in c3 (in k3); a second birth city c2 (in k2) is added after training.
      await new TripleWriter(db).writeEdges([[id('p15'), rel('born_in'), id('c2')]]);
      try {
        const rows = await ask({ entity: id('p15'), relation: rel('nationality'), k: 96 });
        const k2 = rows.find((row) => row.entity.id === id('k2')) as Row;
        expect(k2).toBeDefined();
        const usesNewEdge = k2.reasons.some((r) => r.edges.some(edgeIs('p15', 'born_in', 'c2')));
        expect(usesNewEdge).toBe(!withGraphFile);
      } finally {
        await db.write((tx) =>
          tx.run('MATCH (:Entity {id: $h})-[e]->(:Entity {id: $t}) WHERE type(e) = $r DELETE e', {
            h: id('p15'),
            r: rel('born_in'),
            t: id('c2'),
          }),
        );
      }
    },
  );
});
