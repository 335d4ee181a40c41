import { Database, TripleWriter } from '../../src/graph';
import { createApiKey } from '../../src/server/api-keys';
import { startServer } from '../../src/server/start-server';
import { gql, MIGRATIONS, ServedGraph, trainServedGraph } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

interface Edge {
  head: string;
  relation: string;
  tail: string;
}

interface Answer extends Edge {
  logit: number | null;
  headLogit: number | null;
  probability: number | null;
  rank: number | null;
  exists: boolean;
  rejected: boolean;
  modelVersion: string;
}

interface Row {
  entity: { id: string };
  rank: number;
  logit: number;
  probability: number;
}

interface GraphQLError {
  message: string;
  path?: (string | number)[];
  extensions: { code: string };
}

const EDGES = `query($edges: [EdgeInput!]!) {
  edgeProbabilities(edges: $edges) {
    head relation tail logit headLogit probability rank exists rejected modelVersion
  }
}`;

const MISSING = `query($entity: String!, $relation: String!, $k: Int, $direction: Direction) {
  missingLinks(entity: $entity, relation: $relation, k: $k, direction: $direction) {
    entity { id } rank logit probability
  }
}`;

// A reader may ask; nobody may ask without a key.
const reader = createApiKey('app', 'reader');

describe('edgeProbabilities over HTTP, against the live graph and a served model', () => {
  const tag = uniqueId('ep');
  let graph: ServedGraph;
  let db: Database;
  let server: Awaited<ReturnType<typeof startServer>>;
  const ask = async (edges: Edge[]) => {
    const result = await gql<{ edgeProbabilities: Answer[] }>(
      server.url,
      EDGES,
      { edges },
      reader.key,
    );
    return {
      status: result.status,
      answers: result.data?.edgeProbabilities ?? [],
      errors: result.errors as GraphQLError[] | undefined,
    };
  };
  const missing = async (entity: string, relation: string, k = 1000, direction = 'TAIL') =>
    (
      await gql<{ missingLinks: Row[] }>(
        server.url,
        MISSING,
        { entity, relation, k, direction },
        reader.key,
      )
    ).data!.missingLinks;
  /** The rank missingLinks' list implies for a logit (ties count half). */
  const rankAmong = (rows: Row[], logit: number) =>
    1 +
    rows.filter((r) => r.logit > logit).length +
    rows.filter((r) => r.logit === logit).length / 2;

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag);
    server = await startServer(
      testServerConfig({
        KGC_API_KEYS: reader.entry,
        KGC_ANONYMOUS_READS: 'false',
        // The default limit: 1,000 edges (19,000 and their heads' known tails) fit; two such aliases do not.
      }),
      { migrationsDir: MIGRATIONS, modelDir: graph.modelDir },
    );
  });

  afterAll(async () => {
    await server?.stop();
    await graph?.cleanUp(db);
    await db.close();
  });

  it('ranks an edge not in the graph where missingLinks lists its tail, with the same logits and probability', async () => {
    const head = graph.id('e5');
    const rows = await missing(head, graph.similar);
    expect(rows.length).toBeGreaterThan(100);
    const picks = [0, 1, 3, 10, 40, rows.length - 1];
    const { answers, errors } = await ask(
      picks.map((p) => ({ head, relation: graph.similar, tail: rows[p]!.entity.id })),
    );
    expect(errors).toBeUndefined();
    picks.forEach((p, i) => {
      const [answer, row] = [answers[i]!, rows[p]!];
      expect(answer).toMatchObject({
        head,
        relation: graph.similar,
        tail: row.entity.id,
        exists: false,
        rejected: false,
        modelVersion: graph.modelDir.split('/').pop(),
      });
      expect(answer.rank).toBe(row.rank);
      // Equal up to float32 rounding: a batch of queries may sum the product in another order.
      expect(answer.logit).toBeCloseTo(row.logit, 4);
      // This version has no calibration: the probability is the tail question's sigmoid.
      expect(answer.probability).toBeCloseTo(row.probability, 5);
    });
    // The head question's logit is the one missingLinks lists the head with, asked from the tail.
    for (const p of [0, 10]) {
      const tail = rows[p]!.entity.id;
      const heads = await missing(tail, graph.similar, 1000, 'HEAD');
      const row = heads.find((r) => r.entity.id === head)!;
      const answer = answers[picks.indexOf(p)]!;
      expect(answer.headLogit).toBeCloseTo(row.logit, 4);
      expect(answer.headLogit).not.toBeCloseTo(answer.logit!, 4);
    }
  });

  it('says an edge exists and ranks it against the other known tails', async () => {
    // classGraph: e_i similar_to e_{i+4}, e_{i+8}, e_{i+12}, e_{i+16}.
    const head = graph.id('e30');
    const tails = [34, 38, 42, 46].map((i) => graph.id(`e${i}`));
    const rows = await missing(head, graph.similar);
    for (const tail of tails) expect(rows.map((r) => r.entity.id)).not.toContain(tail);
    const { answers, errors } = await ask(
      tails.map((tail) => ({ head, relation: graph.similar, tail })),
    );
    expect(errors).toBeUndefined();
    for (const answer of answers) {
      expect(answer).toMatchObject({ exists: true, rejected: false });
      // Among what missingLinks may list: the head and the other known tails are left out (the
      // lowest of the four would rank 3 places lower if they were not).
      expect(answer.rank).toBe(rankAmong(rows, answer.logit!));
    }
  });

  it('says an edge was rejected, and a rejection moves the other tails up', async () => {
    const head = graph.id('e7');
    const before = await missing(head, graph.similar, 5);
    const [rejected, next] = [before[1]!.entity.id, before[3]!.entity.id];
    await db.write((tx) =>
      tx.run(
        'CREATE (:RejectedPrediction {key: $key, head: $head, relation: $relation, tail: $tail})',
        {
          key: JSON.stringify([head, graph.similar, rejected]),
          head,
          relation: graph.similar,
          tail: rejected,
        },
      ),
    );
    const { answers, errors } = await ask([
      { head, relation: graph.similar, tail: rejected },
      { head, relation: graph.similar, tail: next },
    ]);
    expect(errors).toBeUndefined();
    expect(answers[0]).toMatchObject({ exists: false, rejected: true, rank: 2 });
    expect(answers[1]).toMatchObject({ exists: false, rejected: false, rank: 3 });
    const after = await missing(head, graph.similar, 5);
    expect(after[2]!.entity.id).toBe(next);
  });

  it('refuses bad input with BAD_USER_INPUT naming the argument', async () => {
    const edge = { head: graph.id('e1'), relation: graph.similar, tail: graph.id('e2') };
    const tooMany = await ask(Array.from({ length: 1001 }, () => edge));
    expect(tooMany.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(tooMany.errors?.[0]?.message).toMatch(/edges must hold 1 to 1000 edges, got 1001/);
    const none = await ask([]);
    expect(none.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const badId = await ask([edge, edge, edge, { ...edge, head: 'a\u0000b' }]);
    expect(badId.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(badId.errors?.[0]?.message).toMatch(/edges\[3\]\.head/);
    expect(badId.answers).toEqual([]);
    const badRelation = await ask([edge, { ...edge, relation: '' }]);
    expect(badRelation.errors?.[0]?.message).toMatch(/edges\[1\]\.relation/);
  });

  it('gives an edge it cannot score null numbers and its error, and answers the others', async () => {
    // In the graph but not in the model: added after training.
    const late = graph.id('late');
    // Linked only to another new entity: nothing to fold it in from.
    await new TripleWriter(db).writeEdges([[graph.id('late-source'), graph.similar, late]]);
    const good = { head: graph.id('e1'), relation: graph.similar, tail: graph.id('e2') };
    const edges = [
      { ...good, head: graph.id('nobody') },
      good,
      { ...good, tail: graph.id('nobody') },
      { ...good, relation: 'no_such_relation' },
      { head: graph.id('late-source'), relation: graph.similar, tail: late },
    ];
    const { status, answers, errors } = await ask(edges);
    expect(status).toBe(200);
    expect(answers).toHaveLength(5);
    expect(answers[1]!.rank).toBeGreaterThanOrEqual(1);
    expect(typeof answers[1]!.logit).toBe('number');
    for (const i of [0, 2, 3, 4]) {
      expect(answers[i]).toMatchObject({
        ...edges[i],
        logit: null,
        headLogit: null,
        probability: null,
        rank: null,
      });
    }
    expect(answers[4]!.exists).toBe(true);
    const errorOf = (i: number) => {
      const mine = (errors ?? []).filter((e) => e.path?.[1] === i);
      // One error per number asked (logit, headLogit, probability, rank), all the same.
      expect(mine.map((e) => e.path?.[2]).sort()).toEqual([
        'headLogit',
        'logit',
        'probability',
        'rank',
      ]);
      expect(new Set(mine.map((e) => `${e.extensions.code} ${e.message}`)).size).toBe(1);
      return mine[0]!;
    };
    expect(errorOf(0)).toMatchObject({
      extensions: { code: 'ENTITY_NOT_FOUND' },
      message: expect.stringMatching(/edges\[0\]\.head: no entity/),
    });
    expect(errorOf(2)).toMatchObject({
      extensions: { code: 'ENTITY_NOT_FOUND' },
      message: expect.stringMatching(/edges\[2\]\.tail: no entity/),
    });
    expect(errorOf(3)).toMatchObject({
      extensions: { code: 'UNKNOWN_RELATION' },
      message: expect.stringMatching(/edges\[3\]\.relation: no relation "no_such_relation"/),
    });
    expect(errorOf(4)).toMatchObject({
      extensions: { code: 'ENTITY_NOT_IN_MODEL' },
      message: expect.stringMatching(/edges\[4\]\.head: .* not in the serving model/),
    });
    expect((errors ?? []).filter((e) => e.path?.[1] === 1)).toEqual([]);
  });

  it('counts each edge in the request cost, and answers 1,000 edges in one call', async () => {
    const edges = Array.from({ length: 1000 }, (_, i) => ({
      head: graph.id(`e${i % 120}`),
      relation: graph.similar,
      tail: graph.id(`e${(i * 7) % 120}`),
    }));
    const { answers, errors } = await ask(edges);
    expect(errors).toBeUndefined();
    expect(answers).toHaveLength(1000);
    expect(answers.every((a) => typeof a.rank === 'number' && a.rank >= 1)).toBe(true);
    const twice = await gql(
      server.url,
      `query($edges: [EdgeInput!]!) {
        a: edgeProbabilities(edges: $edges) { rank }
        b: edgeProbabilities(edges: $edges) { rank }
      }`,
      { edges },
      reader.key,
    );
    expect(twice.errors?.[0]?.extensions.code).toBe('QUERY_TOO_COSTLY');
  });
});
