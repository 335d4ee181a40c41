import { Database, TripleWriter } from '../../src/graph';
import { startServer } from '../../src/server/start-server';
import { classGraph } from '../support/generated-graph';
import { gql, MIGRATIONS, ServedGraph, trainServedGraph } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

interface Row {
  entity: { id: string; properties: Record<string, unknown> };
  rank: number;
  logit: number;
  probability: number;
  modelVersion: string;
}

const MISSING = `query($entity: String!, $relation: String!, $k: Int, $direction: Direction,
    $minProbability: Float, $excludeConnected: Boolean) {
  missingLinks(entity: $entity, relation: $relation, k: $k, direction: $direction,
      minProbability: $minProbability, excludeConnected: $excludeConnected) {
    entity { id properties } rank logit probability modelVersion
  }
}`;

describe('missingLinks and the read queries over HTTP, against the live graph', () => {
  const tag = uniqueId('ml');
  let graph: ServedGraph;
  let db: Database;
  let server: Awaited<ReturnType<typeof startServer>>;
  const ask = async (variables: Record<string, unknown>) => {
    const result = await gql<{ missingLinks: Row[] }>(server.url, MISSING, variables);
    return { rows: result.data?.missingLinks ?? [], errors: result.errors };
  };

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag);
    server = await startServer(testServerConfig(), {
      migrationsDir: MIGRATIONS,
      modelDir: graph.modelDir,
    });
    // Compared bit for bit once ready: the warm-up's own queries would share the batcher.
    await server.warmedUp;
  });

  afterAll(async () => {
    await server?.stop();
    await graph?.cleanUp(db);
    await db.close();
  });

  it('returns k ranked suggestions with their model version, never an edge that exists', async () => {
    const { rows, errors } = await ask({ entity: graph.id('e5'), relation: graph.similar, k: 10 });
    expect(errors).toBeUndefined();
    expect(rows.map((r) => r.rank)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    for (let i = 1; i < rows.length; i++)
      expect(rows[i - 1]!.logit).toBeGreaterThanOrEqual(rows[i]!.logit);
    for (const row of rows) {
      expect(row.probability).toBeCloseTo(1 / (1 + Math.exp(-row.logit)), 5);
      expect(row.modelVersion).toBe(graph.modelDir.split('/').pop());
    }
    const existing = classGraph(120)
      .filter(([h, r]) => h === 'e5' && r === 'similar_to')
      .map(([, , t]) => graph.id(t));
    for (const tail of [...existing, graph.id('e5')])
      expect(rows.map((r) => r.entity.id)).not.toContain(tail);
  });

  it('filters an edge added a moment ago, and a rejected prediction', async () => {
    const before = (await ask({ entity: graph.id('e7'), relation: graph.similar, k: 5 })).rows;
    const added = before[0]!.entity.id;
    const rejected = before[1]!.entity.id;
    await new TripleWriter(db).writeEdges([[graph.id('e7'), graph.similar, added]]);
    await db.write((tx) =>
      tx.run(
        'CREATE (:RejectedPrediction {key: $key, head: $head, relation: $relation, tail: $tail})',
        {
          key: JSON.stringify([graph.id('e7'), graph.similar, rejected]),
          head: graph.id('e7'),
          relation: graph.similar,
          tail: rejected,
        },
      ),
    );
    const after = (await ask({ entity: graph.id('e7'), relation: graph.similar, k: 5 })).rows;
    expect(after.map((r) => r.entity.id)).not.toContain(added);
    expect(after.map((r) => r.entity.id)).not.toContain(rejected);
    expect(after[0]!.entity.id).toBe(before[2]!.entity.id);
  });

  it('stays exact when more known edges outrank the answers than were scored ahead of the read', async () => {
    const before = (await ask({ entity: graph.id('e20'), relation: graph.similar, k: 80 })).rows;
    expect(before).toHaveLength(80);
    // The 70 best suggestions become edges: more than k + the margin scored ahead (5 + 64).
    const written = before.slice(0, 70).map((r) => r.entity.id);
    await new TripleWriter(db).writeEdges(written.map((t) => [graph.id('e20'), graph.similar, t]));
    const after = (await ask({ entity: graph.id('e20'), relation: graph.similar, k: 5 })).rows;
    expect(after.map((r) => r.entity.id)).toEqual(before.slice(70, 75).map((r) => r.entity.id));
    expect(after.map((r) => r.logit)).toEqual(before.slice(70, 75).map((r) => r.logit));
    expect(after.map((r) => r.rank)).toEqual([1, 2, 3, 4, 5]);
  });

  it('predicts heads with direction HEAD', async () => {
    const { rows, errors } = await ask({
      entity: graph.id('class1'),
      relation: graph.isA,
      k: 5,
      direction: 'HEAD',
    });
    expect(errors).toBeUndefined();
    expect(rows).toHaveLength(5);
    // Every e_i with i mod 4 = 1 already is_a class1: all are filtered as existing heads.
    const existingHeads = classGraph(120)
      .filter(([, r, t]) => r === 'is_a' && t === 'class1')
      .map(([h]) => graph.id(h));
    expect(existingHeads).toHaveLength(30);
    for (const row of rows)
      expect([...existingHeads, graph.id('class1')]).not.toContain(row.entity.id);
    const tails = (await ask({ entity: graph.id('class1'), relation: graph.isA, k: 5 })).rows;
    expect(tails.map((r) => r.logit)).not.toEqual(rows.map((r) => r.logit));
  });

  it('drops answers under minProbability', async () => {
    const all = (await ask({ entity: graph.id('e9'), relation: graph.similar, k: 50 })).rows;
    const cut = (all[0]!.probability + all[all.length - 1]!.probability) / 2;
    const some = (
      await ask({ entity: graph.id('e9'), relation: graph.similar, k: 50, minProbability: cut })
    ).rows;
    expect(some.length).toBeGreaterThan(0);
    expect(some.length).toBeLessThan(all.length);
    expect(some.every((r) => r.probability >= cut)).toBe(true);
    expect(some.map((r) => r.entity.id)).toEqual(
      all.filter((r) => r.probability >= cut).map((r) => r.entity.id),
    );
  });

  it('with excludeConnected leaves out every entity linked to the entity by any relation', async () => {
    const connected = classGraph(120)
      .filter(([h, , t]) => h === 'e12' || t === 'e12')
      .map(([h, , t]) => graph.id(h === 'e12' ? t : h));
    expect(connected).toContain(graph.id('class0'));
    const plain = (await ask({ entity: graph.id('e12'), relation: graph.isA, k: 1000 })).rows;
    // Incoming similar_to edges are not is_a edges: the plain query may suggest those heads.
    expect(plain.map((r) => r.entity.id).some((e) => connected.includes(e))).toBe(true);
    const { rows } = await ask({
      entity: graph.id('e12'),
      relation: graph.isA,
      k: 1000,
      excludeConnected: true,
    });
    for (const row of rows) expect(connected).not.toContain(row.entity.id);
    expect(rows.length).toBe(
      plain.length - new Set(connected.filter((c) => plain.some((r) => r.entity.id === c))).size,
    );
  });

  it("gives each candidate's node properties", async () => {
    await db.write((tx) =>
      tx.run('MATCH (e:Entity {id: $id}) SET e.name = "Class One", e.size = 30', {
        id: graph.id('class1'),
      }),
    );
    const { rows } = await ask({ entity: graph.id('e6'), relation: graph.isA, k: 1000 });
    const class1 = rows.find((r) => r.entity.id === graph.id('class1'));
    expect(class1?.entity.properties).toEqual({ name: 'Class One', size: 30 });
    const entity = await gql<{ entity: { id: string; properties: unknown } | null }>(
      server.url,
      'query($id: String!) { entity(id: $id) { id properties } }',
      { id: graph.id('class1') },
    );
    expect(entity.data?.entity).toEqual({
      id: graph.id('class1'),
      properties: { name: 'Class One', size: 30 },
    });
    const none = await gql<{ entity: unknown }>(
      server.url,
      '{ entity(id: "nobody-at-all") { id } }',
    );
    expect(none.data?.entity).toBeNull();
  });

  it('lists relations with edge counts and whether the model knows them; describes the model', async () => {
    const newRelation = graph.id('added_later');
    await new TripleWriter(db).writeEdges([[graph.id('e1'), newRelation, graph.id('e2')]]);
    const result = await gql<{
      relations: { name: string; edgeCount: number; inModel: boolean }[];
      model: { version: string; entityCount: number; relationCount: number };
    }>(
      server.url,
      '{ relations { name edgeCount inModel } model { version entityCount relationCount } }',
    );
    const byName = new Map(result.data!.relations.map((r) => [r.name, r]));
    expect(byName.get(graph.isA)).toEqual({ name: graph.isA, edgeCount: 120, inModel: true });
    expect(byName.get(newRelation)).toEqual({ name: newRelation, edgeCount: 1, inModel: false });
    expect(result.data!.model).toEqual({
      version: graph.modelDir.split('/').pop(),
      entityCount: 124,
      relationCount: 2,
    });
    const unknown = await ask({ entity: graph.id('e1'), relation: newRelation });
    expect(unknown.errors?.[0]?.extensions.code).toBe('UNKNOWN_RELATION');
    expect(unknown.errors?.[0]?.message).toMatch(/retraining will include it/);
    const typo = await ask({ entity: graph.id('e1'), relation: 'no_such_relation_at_all' });
    expect(typo.errors?.[0]?.extensions.code).toBe('UNKNOWN_RELATION');
  });

  it('answers bad arguments and unknown entities with their codes, naming the argument', async () => {
    for (const k of [0, 1001]) {
      const bad = await ask({ entity: graph.id('e1'), relation: graph.isA, k });
      expect(bad.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
      expect(bad.errors?.[0]?.message).toMatch(/Argument k/);
    }
    const empty = await ask({ entity: '', relation: graph.isA });
    expect(empty.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(empty.errors?.[0]?.message).toMatch(/entity/);
    const badP = await ask({ entity: graph.id('e1'), relation: graph.isA, minProbability: 2 });
    expect(badP.errors?.[0]?.message).toMatch(/minProbability/);

    const unknown = await ask({ entity: graph.id('nobody'), relation: graph.isA });
    expect(unknown.errors?.[0]?.extensions.code).toBe('ENTITY_NOT_FOUND');
    expect(unknown.errors?.[0]?.message).toMatch(/Argument entity/);

    // In the graph, created after the model was trained, with no edge to an entity it knows
    // (one that has is folded in: test/e2e/fold-in.test.ts).
    await new TripleWriter(db).writeEdges([
      [graph.id('newcomer'), graph.isA, graph.id('newcomer-class')],
    ]);
    const newcomer = await ask({ entity: graph.id('newcomer'), relation: graph.isA });
    expect(newcomer.errors?.[0]?.extensions.code).toBe('ENTITY_NOT_IN_MODEL');
    expect(newcomer.errors?.[0]?.message).toMatch(/needs an edge to an entity the model knows/);
  });

  it('says MODEL_NOT_READY when no model is served', async () => {
    const bare = await startServer(testServerConfig(), { migrationsDir: MIGRATIONS });
    try {
      const result = await gql(bare.url, MISSING, { entity: graph.id('e1'), relation: graph.isA });
      expect(result.errors?.[0]?.extensions.code).toBe('MODEL_NOT_READY');
      const model = await gql<{ model: unknown }>(bare.url, '{ model { version } }');
      expect(model.data?.model).toBeNull();
    } finally {
      await bare.stop();
    }
  });
});
