import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, TripleWriter } from '../../src/graph';
import { exportDenseGraph, splitTriples } from '../../src/ingest';
import { resolveTrainingConfig, train } from '../../src/model';
import { startServer } from '../../src/server/start-server';
import { classGraph } from '../support/generated-graph';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

const MIGRATIONS = path.resolve(__dirname, '../../migrations');

interface Row {
  entity: string;
  rank: number;
  logit: number;
  probability: number;
}

async function query(url: string, text: string, variables: Record<string, unknown>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: text, variables }),
  });
  return (await response.json()) as {
    data?: { missingLinks: Row[] | null };
    errors?: { message: string; extensions: { code: string } }[];
  };
}

const MISSING = `query($entity: String!, $relation: String!, $k: Int, $direction: Direction) {
  missingLinks(entity: $entity, relation: $relation, k: $k, direction: $direction) {
    entity rank logit probability
  }
}`;

describe('missingLinks over HTTP, filtered against the live graph', () => {
  const tag = uniqueId('ml');
  const id = (name: string) => `${name}_${tag}`;
  const isA = id('is_a');
  const similar = id('similar_to');
  let db: Database;
  let server: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    db = testDatabase();
    const rows = classGraph(120).map(([h, r, t]): [string, string, string] => [
      id(h),
      r === 'is_a' ? isA : similar,
      id(t),
    ]);
    await new TripleWriter(db).writeEdges(rows);
    const graph = await exportDenseGraph(db, { relations: [isA, similar] });
    const split = splitTriples(graph, { seed: 1, validFraction: 0.1, testFraction: 0.1 });
    const ids = (indexes: Int32Array | number[]) =>
      Uint32Array.from(
        [...indexes].flatMap((i) => [graph.heads[i]!, graph.relations[i]!, graph.tails[i]!]),
      );
    const modelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-serve-model-'));
    await train(
      {
        entities: graph.entities,
        relations: graph.relationNames,
        train: ids(split.train),
        valid: ids(split.valid),
        test: ids(split.test),
      },
      resolveTrainingConfig('default', {
        entityDim: 32,
        relationDim: 8,
        dropoutIn: 0.2,
        dropoutH2: 0.3,
        lr: 0.01,
        epochs: 40,
        evalEvery: 0,
        seed: 3,
      }),
      { outDir: modelDir },
    );
    server = await startServer(testServerConfig(), { migrationsDir: MIGRATIONS, modelDir });
  });

  afterAll(async () => {
    await server?.stop();
    await db.write((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
    );
    await db.write((tx) =>
      tx.run('MATCH (p:RejectedPrediction) WHERE p.head ENDS WITH $tag DELETE p', { tag }),
    );
    await db.close();
  });

  it('returns k ranked suggestions, never an edge that exists', async () => {
    const result = await query(server.url, MISSING, { entity: id('e5'), relation: similar, k: 10 });
    expect(result.errors).toBeUndefined();
    const rows = result.data?.missingLinks ?? [];
    expect(rows.map((r) => r.rank)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    for (let i = 1; i < rows.length; i++)
      expect(rows[i - 1]!.logit).toBeGreaterThanOrEqual(rows[i]!.logit);
    for (const row of rows) expect(row.probability).toBeCloseTo(1 / (1 + Math.exp(-row.logit)), 5);
    const existing = classGraph(120)
      .filter(([h, r]) => h === 'e5' && r === 'similar_to')
      .map(([, , t]) => id(t));
    expect(rows.map((r) => r.entity)).not.toEqual(expect.arrayContaining([existing[0]]));
    for (const tail of [...existing, id('e5')])
      expect(rows.map((r) => r.entity)).not.toContain(tail);
  });

  it('filters an edge added a moment ago, and a rejected prediction', async () => {
    const before = (await query(server.url, MISSING, { entity: id('e7'), relation: similar, k: 5 }))
      .data?.missingLinks as Row[];
    const added = before[0]!.entity;
    const rejected = before[1]!.entity;
    await new TripleWriter(db).writeEdges([[id('e7'), similar, added]]);
    await db.write((tx) =>
      tx.run(
        'CREATE (:RejectedPrediction {key: $key, head: $head, relation: $relation, tail: $tail})',
        {
          key: JSON.stringify([id('e7'), similar, rejected]),
          head: id('e7'),
          relation: similar,
          tail: rejected,
        },
      ),
    );
    const after = (await query(server.url, MISSING, { entity: id('e7'), relation: similar, k: 5 }))
      .data?.missingLinks as Row[];
    expect(after.map((r) => r.entity)).not.toContain(added);
    expect(after.map((r) => r.entity)).not.toContain(rejected);
    expect(after[0]!.entity).toBe(before[2]!.entity);
  });

  it('predicts heads with direction HEAD', async () => {
    const result = await query(server.url, MISSING, {
      entity: id('class1'),
      relation: isA,
      k: 5,
      direction: 'HEAD',
    });
    expect(result.errors).toBeUndefined();
    const rows = result.data?.missingLinks ?? [];
    expect(rows).toHaveLength(5);
    // Every e_i with i mod 4 = 1 already is_a class1: all are filtered as existing heads.
    const existingHeads = classGraph(120)
      .filter(([, r, t]) => r === 'is_a' && t === 'class1')
      .map(([h]) => id(h));
    expect(existingHeads).toHaveLength(30);
    for (const row of rows) expect([...existingHeads, id('class1')]).not.toContain(row.entity);
    const tails = (await query(server.url, MISSING, { entity: id('class1'), relation: isA, k: 5 }))
      .data?.missingLinks as Row[];
    expect(tails.map((r) => r.logit)).not.toEqual(rows.map((r) => r.logit));
  });

  it('answers bad arguments with a code and a message naming the argument', async () => {
    const badK = await query(server.url, MISSING, { entity: id('e1'), relation: isA, k: 0 });
    expect(badK.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(badK.errors?.[0]?.message).toMatch(/Argument k/);

    const unknown = await query(server.url, MISSING, { entity: id('nobody'), relation: isA });
    expect(unknown.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    expect(unknown.errors?.[0]?.message).toMatch(/Argument entity/);
  });

  it('says MODEL_NOT_READY when no model is served', async () => {
    const bare = await startServer(testServerConfig(), { migrationsDir: MIGRATIONS });
    try {
      const result = await query(bare.url, MISSING, { entity: id('e1'), relation: isA });
      expect(result.errors?.[0]?.extensions.code).toBe('MODEL_NOT_READY');
    } finally {
      await bare.stop();
    }
  });
});
