import fs from 'node:fs';
import path from 'node:path';
import { Database, relationCounts } from '../../src/graph';
import { countsByDynamicType } from '../../src/graph/entities/relation-counts';
import { ingestFile } from '../../src/ingest';
import { createApiKey } from '../../src/server/api-keys';
import { startServer } from '../../src/server/start-server';
import { tempDir } from '../integration/ingest/ingest-fixtures';
import {
  gql,
  GraphQLResult,
  MIGRATIONS,
  ServedGraph,
  trainServedGraph,
} from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

const admin = createApiKey('mallory-admin', 'admin');

/** Characters an N-Triples IRI may not hold as they are. */
// eslint-disable-next-line no-control-regex
const IRI_EXCLUDED = /[\u0000-\u0020<>"{}|^`\\]/;
/** An IRI for N-Triples: every excluded character written as a \\uXXXX escape. */
function ntIri(text: string): string {
  return [...text]
    .map((c) => (IRI_EXCLUDED.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
    .join('');
}

/**
 * Texts that would turn into Cypher if a name were ever spliced into a query: Cypher's lexer
 * reads `\u0060` and `\U00000060` as a backtick before it reads a quoted identifier, so each
 * escape form is tried, with the rest of a working injection behind it (`real` is a relation
 * of the graph, so a spliced name would match edges and run the trailing query).
 */
function hostileTexts(real: string): string[] {
  const u = '\\u0060'; // the six characters \ u 0 0 6 0
  return [
    `x${u}|${real}]->() MATCH (e:Entity) RETURN collect(e.id) AS n //`,
    `x${u}|${real}]->() RETURN 42 AS n //`,
    `x\\${u}|${real}]->() RETURN 42 AS n //`, // \\u0060: an escaped backslash, then u0060
    `x\\U00000060|${real}]->() RETURN 42 AS n //`,
    `x\\u0060\\U00000060\\U0060 mixed ${u.toUpperCase()}`,
    `x\`|${real}]->() RETURN 42 AS n //`,
    `x\`\`|${real}]->() DETACH DELETE n //`,
    `x' OR 1=1 RETURN "quoted" AS n //`,
    `surrogates 𝒳 \ud835\udcb3 ${u} 😀`,
    `$(x) {a: 1} \\ \\\\ */ /*`,
  ];
}

interface GraphShape {
  entities: number;
  edges: number;
  types: string[];
}

/** What an attack could change: entities, edges between them and the types in use. */
async function shape(db: Database, tag: string): Promise<GraphShape> {
  const result = await db.read((tx) =>
    tx.run(
      `MATCH (e:Entity) WHERE e.id ENDS WITH $tag
       OPTIONAL MATCH (e)-[r]->(:Entity)
       RETURN count(DISTINCT e) AS entities, count(r) AS edges, collect(DISTINCT type(r)) AS types`,
      { tag },
    ),
  );
  const record = result.records[0]!;
  return {
    entities: Number(record.get('entities')),
    edges: Number(record.get('edges')),
    types: (record.get('types') as string[]).sort(),
  };
}

/** Codes a hostile argument may get: refusals that name it; never a database error. */
const REFUSALS = [
  'BAD_USER_INPUT',
  'UNKNOWN_RELATION',
  'ENTITY_NOT_FOUND',
  'EDGE_NOT_FOUND',
  'REJECTION_NOT_FOUND',
];

function refused(result: GraphQLResult<unknown>): string {
  expect(result.status).toBeLessThan(500);
  expect(result.errors?.length ?? 0).toBeGreaterThan(0);
  const code = result.errors![0]!.extensions.code;
  expect(REFUSALS).toContain(code);
  expect(result.errors![0]!.message).not.toMatch(/Neo4j error|SyntaxError|Invalid input/);
  return result.errors![0]!.message;
}

describe('Cypher injection: no text from a request or from the data is run as Cypher', () => {
  const tag = uniqueId('inj');
  let db: Database;
  let graph: ServedGraph;
  let server: Awaited<ReturnType<typeof startServer>>;
  let texts: string[];
  let sites = 0;
  const ask = <T>(query: string, variables: Record<string, unknown>) =>
    gql<T>(server.url, query, variables, admin.key);

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag, 60);
    texts = hostileTexts(graph.similar);
    server = await startServer(testServerConfig({ KGC_API_KEYS: admin.entry }), {
      migrationsDir: MIGRATIONS,
      modelDir: graph.modelDir,
    });
  });

  afterAll(async () => {
    console.log(`cypher injection: ${texts.length} texts x ${sites} sites tried`);
    await server?.stop();
    await graph?.cleanUp(db);
    await db?.close();
  });

  it('refuses every hostile argument of every query and mutation, and the graph is unchanged', async () => {
    const before = await shape(db, tag);
    const head = graph.id('e1');
    const tail = graph.id('e2');
    const relation = graph.similar;
    for (const text of texts) {
      const edgeArgs = [
        { head: text, relation, tail },
        { head, relation: text, tail },
        { head, relation, tail: text },
      ];
      const calls: [string, Record<string, unknown>][] = [
        [
          'query($e: String!, $r: String!) { missingLinks(entity: $e, relation: $r) { rank } }',
          { e: head, r: text },
        ],
        [
          'query($e: String!, $r: String!) { missingLinks(entity: $e, relation: $r, excludeConnected: true) { rank } }',
          { e: text, r: relation },
        ],
        ['query($id: String!) { entity(id: $id) { id } }', { id: text }],
        ['query($a: String) { decisions(after: $a) { hasMore } }', { a: text }],
        ['query($a: String) { trainingRuns(after: $a) { hasMore } }', { a: text }],
      ];
      for (const args of edgeArgs) {
        for (const mutation of ['acceptPrediction', 'revertAcceptedPrediction', 'undoRejection']) {
          calls.push([
            `mutation($head: String!, $relation: String!, $tail: String!) {
              ${mutation}(head: $head, relation: $relation, tail: $tail) { head }
            }`,
            args,
          ]);
        }
        if (args.relation === text || args.head === text || args.tail === text) {
          calls.push([
            `mutation($head: String!, $relation: String!, $tail: String!) {
              rejectPrediction(head: $head, relation: $relation, tail: $tail) { head }
            }`,
            args,
          ]);
        }
        calls.push([
          'mutation($items: [EdgeInput!]!) { acceptPredictions(items: $items) { head } }',
          { items: [args] },
        ]);
      }
      sites = calls.length + 2;
      for (const [query, variables] of calls) {
        const result = await ask<Record<string, unknown>>(query, variables);
        if (query.includes('entity(id:')) {
          expect(result.errors).toBeUndefined();
          expect(result.data).toEqual({ entity: null });
        } else if (query.includes('decisions') || query.includes('trainingRuns')) {
          expect(refused(result)).toMatch(/cursor|after/i);
        } else {
          const message = refused(result);
          // The oracle of the attack: a forged name must never be "in the graph".
          expect(message).not.toMatch(/is in the graph/);
        }
      }

      const batch = await ask<{ missingLinksBatch: unknown[] }>(
        'query($q: [MissingLinksInput!]!) { missingLinksBatch(queries: $q) { rank } }',
        {
          q: [
            { entity: head, relation: text },
            { entity: text, relation },
          ],
        },
      );
      expect(batch.data?.missingLinksBatch).toEqual([null, null]);
      expect(batch.errors?.map((e) => e.extensions.code).sort()).toEqual([
        'ENTITY_NOT_FOUND',
        'UNKNOWN_RELATION',
      ]);

      // A reason is free text: stored and answered verbatim, never parsed.
      const rejected = await ask<{ rejectPrediction: { reason: string } }>(
        `mutation($head: String!, $relation: String!, $tail: String!, $reason: String) {
          rejectPrediction(head: $head, relation: $relation, tail: $tail, reason: $reason) { reason }
        }`,
        { head, relation, tail, reason: text },
      );
      expect(rejected.errors).toBeUndefined();
      expect(rejected.data!.rejectPrediction.reason).toBe(text);
      const undone = await ask(
        'mutation($h: String!, $r: String!, $t: String!) { undoRejection(head: $h, relation: $r, tail: $t) { reason } }',
        { h: head, r: relation, t: tail },
      );
      expect(undone.errors).toBeUndefined();
    }
    expect(await shape(db, tag)).toEqual(before);
  });

  it('refuses half a surrogate pair (Neo4j would store U+FFFD instead) in ids and reasons', async () => {
    const before = await shape(db, tag);
    const lone = 'x \ud800 y';
    const relation = graph.similar;
    const edges = [
      { head: lone, relation, tail: graph.id('e2') },
      { head: graph.id('e1'), relation: lone, tail: graph.id('e2') },
      { head: graph.id('e1'), relation, tail: lone },
    ];
    for (const edge of edges) {
      const result = await ask(
        'mutation($h: String!, $r: String!, $t: String!) { acceptPrediction(head: $h, relation: $r, tail: $t) { head } }',
        { h: edge.head, r: edge.relation, t: edge.tail },
      );
      expect(result.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
      expect(result.errors?.[0]?.message).toMatch(/lone surrogate/);
    }
    const reason = await ask(
      'mutation($h: String!, $r: String!, $t: String!, $why: String) { rejectPrediction(head: $h, relation: $r, tail: $t, reason: $why) { head } }',
      { h: graph.id('e1'), r: relation, t: graph.id('e2'), why: lone },
    );
    expect(reason.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(reason.errors?.[0]?.message).toMatch(/reason contains a lone surrogate/);
    expect(await shape(db, tag)).toEqual(before);
  });

  it('stores hostile names from every ingest format verbatim, and counts and serves them safely', async () => {
    const dir = tempDir();
    const h = (i: number) => graph.id(`e${i}`);
    const tsvNames = texts;
    const csvNames = texts.map((t) => `csv ${t}`);
    fs.writeFileSync(
      path.join(dir, 'hostile.tsv'),
      tsvNames.map((name, i) => `${h(i)}\t${name}\t${h(i + 1)}\n`).join(''),
    );
    const csvField = (s: string) => `"${s.replaceAll('"', '""')}"`;
    fs.writeFileSync(
      path.join(dir, 'hostile.csv'),
      'head,relation,tail\n' +
        csvNames.map((name, i) => [h(i), name, h(i + 2)].map(csvField).join(',') + '\n').join(''),
    );
    // N-Triples: the names travel escaped (\\uXXXX in IRIs, \\ and \" in literals) and are
    // decoded by the parser: the decoded text is what must be stored.
    const ntNames = texts.map((t) => `urn:rel:${t}`);
    const ntLines = [
      ...ntNames.map((name, i) => `<${h(i)}> <${ntIri(name)}> <${h(i + 3)}> .`),
      ...texts.map(
        (t, i) =>
          `<${h(i)}> <${ntIri(`urn:key:${t}`)}> "${t.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}" .`,
      ),
    ];
    fs.writeFileSync(path.join(dir, 'hostile.nt'), ntLines.join('\n') + '\n');

    for (const file of ['hostile.tsv', 'hostile.csv', 'hostile.nt']) {
      const summary = await ingestFile(db, { file: path.join(dir, file) });
      expect(summary).toMatchObject({ skipped: 0, failed: 0 });
      expect(summary.written).toBeGreaterThan(0);
    }

    const expected = [...tsvNames, ...csvNames, ...ntNames];
    const stored = await db.read((tx) =>
      tx.run(
        `MATCH (a:Entity)-[r]->(:Entity) WHERE a.id ENDS WITH $tag AND NOT type(r) IN $served
         RETURN type(r) AS name, count(*) AS n`,
        { tag, served: [graph.similar, graph.isA] },
      ),
    );
    const storedNames = new Map(
      stored.records.map((r) => [r.get('name') as string, Number(r.get('n'))]),
    );
    expect([...storedNames.keys()].sort()).toEqual([...expected].sort());
    for (const n of storedNames.values()) expect(n).toBe(1);

    // Stored names feed the count-store read (relations, export); both paths count them exactly.
    const counted = new Map((await relationCounts(db)).map((c) => [c.name, c.edgeCount]));
    const dynamic = new Map(
      (await countsByDynamicType(db, null)).map((c) => [c.name, c.edgeCount]),
    );
    for (const name of expected) {
      expect(counted.get(name)).toBe(1);
      expect(dynamic.get(name)).toBe(1);
    }
    const relations = await ask<{
      relations: { name: string; edgeCount: number; inModel: boolean }[];
    }>('{ relations { name edgeCount inModel } }', {});
    expect(relations.errors).toBeUndefined();
    for (const name of expected) {
      expect(relations.data!.relations).toContainEqual({ name, edgeCount: 1, inModel: false });
    }

    // Now that they are stored, a hostile name is honestly "in the graph but not in the model".
    for (const name of expected) {
      const result = await ask(
        'query($e: String!, $r: String!) { missingLinks(entity: $e, relation: $r) { rank } }',
        { e: h(0), r: name },
      );
      expect(result.errors?.[0]?.extensions.code).toBe('UNKNOWN_RELATION');
      expect(result.errors?.[0]?.message).toMatch(/is in the graph/);
    }

    for (const [i, t] of texts.entries()) {
      const props = await ask<{ entity: { properties: Record<string, unknown> } }>(
        'query($id: String!) { entity(id: $id) { properties } }',
        { id: h(i) },
      );
      expect(props.data!.entity.properties[`urn:key:${t}`]).toBe(t);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
