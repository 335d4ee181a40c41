import { Database, TripleWriter } from '../../src/graph';
import { createApiKey } from '../../src/server/api-keys';
import { startServer } from '../../src/server/start-server';
import { gql, MIGRATIONS, ServedGraph, trainServedGraph } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

const admin = createApiKey('alice', 'admin');
const reader = createApiKey('bob', 'reader');
const keyOf = (created: { key: string }) => created.key;

const ACCEPT = `mutation($head: String!, $relation: String!, $tail: String!) {
  acceptPrediction(head: $head, relation: $relation, tail: $tail) {
    head relation tail modelVersion logit probability acceptedBy acceptedAt
  }
}`;
const ACCEPT_MANY = `mutation($items: [EdgeInput!]!) {
  acceptPredictions(items: $items) { head tail acceptedBy }
}`;
const REJECT = `mutation($head: String!, $relation: String!, $tail: String!, $reason: String) {
  rejectPrediction(head: $head, relation: $relation, tail: $tail, reason: $reason) {
    head tail reason rejectedBy rejectedAt modelVersion
  }
}`;
const UNDO = `mutation($head: String!, $relation: String!, $tail: String!) {
  undoRejection(head: $head, relation: $relation, tail: $tail) { head tail reason }
}`;
const REVERT = `mutation($head: String!, $relation: String!, $tail: String!) {
  revertAcceptedPrediction(head: $head, relation: $relation, tail: $tail) { head tail acceptedBy }
}`;
const MISSING = `query($entity: String!, $relation: String!) {
  missingLinks(entity: $entity, relation: $relation, k: 10) { entity { id } logit probability }
}`;
const DECISIONS = `query($first: Int, $after: String, $kind: DecisionKind) {
  decisions(first: $first, after: $after, kind: $kind) {
    items { kind head relation tail by modelVersion logit reason at }
    endCursor hasMore
  }
}`;

interface Decision {
  kind: string;
  head: string;
  tail: string;
  by: string;
  modelVersion: string | null;
  logit: number | null;
  reason: string | null;
}

describe('write-back: admin decisions over HTTP with API keys', () => {
  const tag = uniqueId('wb');
  let graph: ServedGraph;
  let db: Database;
  let server: Awaited<ReturnType<typeof startServer>>;
  const edge = (head: string, tail: string) => ({
    head: graph.id(head),
    relation: graph.similar,
    tail: graph.id(tail),
  });
  const suggestions = async (head: string) =>
    (
      await gql<{ missingLinks: { entity: { id: string }; logit: number }[] }>(
        server.url,
        MISSING,
        { entity: graph.id(head), relation: graph.similar },
        keyOf(reader),
      )
    ).data!.missingLinks;
  const edgesBetween = async (head: string, tail: string) =>
    (
      await db.read((tx) =>
        tx.run(
          'MATCH (:Entity {id: $h})-[e]->(:Entity {id: $t}) WHERE type(e) = $r RETURN e {.*} AS e',
          { h: graph.id(head), t: graph.id(tail), r: graph.similar },
        ),
      )
    ).records.map((r) => r.get('e') as Record<string, unknown>);

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag);
    server = await startServer(
      testServerConfig({ KGC_API_KEYS: `${admin.entry},${reader.entry}` }),
      { migrationsDir: MIGRATIONS, modelDir: graph.modelDir },
    );
  });

  afterAll(async () => {
    await server?.stop();
    await graph?.cleanUp(db);
    await db.close();
  });

  it('accepts a prediction: one edge with its provenance, re-scored by the model, idempotent', async () => {
    const top = (await suggestions('e3'))[0]!;
    const tail = top.entity.id.replace(`_${tag}`, '');
    const first = await gql<{ acceptPrediction: Record<string, unknown> }>(
      server.url,
      ACCEPT,
      edge('e3', tail),
      keyOf(admin),
    );
    expect(first.errors).toBeUndefined();
    const accepted = first.data!.acceptPrediction;
    expect(accepted).toMatchObject({
      ...edge('e3', tail),
      modelVersion: graph.modelDir.split('/').pop(),
      acceptedBy: 'alice',
    });
    expect(accepted.logit).toBeCloseTo(top.logit, 4);
    expect(accepted.probability).toBeCloseTo(1 / (1 + Math.exp(-top.logit)), 5);
    expect(Date.parse(accepted.acceptedAt as string)).toBeGreaterThan(Date.now() - 60_000);

    const again = await gql<{ acceptPrediction: unknown }>(
      server.url,
      ACCEPT,
      edge('e3', tail),
      keyOf(admin),
    );
    expect(again.data!.acceptPrediction).toEqual(accepted);
    const stored = await edgesBetween('e3', tail);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ kgc_source: 'prediction', kgc_accepted_by: 'alice' });
    expect((await suggestions('e3')).map((s) => s.entity.id)).not.toContain(top.entity.id);
  });

  it('rejects a prediction (never suggested again), undoes it, and accepting clears a rejection', async () => {
    const top = (await suggestions('e21'))[0]!.entity.id.replace(`_${tag}`, '');
    const rejected = await gql<{ rejectPrediction: Record<string, unknown> }>(
      server.url,
      REJECT,
      { ...edge('e21', top), reason: 'wrong class' },
      keyOf(admin),
    );
    expect(rejected.errors).toBeUndefined();
    expect(rejected.data!.rejectPrediction).toMatchObject({
      reason: 'wrong class',
      rejectedBy: 'alice',
    });
    expect((await suggestions('e21')).map((s) => s.entity.id)).not.toContain(graph.id(top));

    const undone = await gql(server.url, UNDO, edge('e21', top), keyOf(admin));
    expect(undone.errors).toBeUndefined();
    expect((await suggestions('e21')).map((s) => s.entity.id)).toContain(graph.id(top));
    const twice = await gql(server.url, UNDO, edge('e21', top), keyOf(admin));
    expect(twice.errors?.[0]?.extensions.code).toBe('REJECTION_NOT_FOUND');

    await gql(server.url, REJECT, edge('e21', top), keyOf(admin));
    await gql(server.url, ACCEPT, edge('e21', top), keyOf(admin));
    const left = await db.read((tx) =>
      tx.run('MATCH (p:RejectedPrediction {key: $key}) RETURN count(p) AS n', {
        key: JSON.stringify([graph.id('e21'), graph.similar, graph.id(top)]),
      }),
    );
    expect(left.records[0]!.get('n')).toBe(0);
  });

  it('reverts an accepted prediction and refuses to revert an ingested edge', async () => {
    await gql(server.url, ACCEPT, edge('e30', 'e31'), keyOf(admin));
    const reverted = await gql<{ revertAcceptedPrediction: Record<string, unknown> }>(
      server.url,
      REVERT,
      edge('e30', 'e31'),
      keyOf(admin),
    );
    expect(reverted.errors).toBeUndefined();
    expect(reverted.data!.revertAcceptedPrediction).toMatchObject({ acceptedBy: 'alice' });
    expect(await edgesBetween('e30', 'e31')).toHaveLength(0);

    // e30 -similar_to-> e34 was ingested (classGraph links i to i+4).
    const ingested = await gql(server.url, REVERT, edge('e30', 'e34'), keyOf(admin));
    expect(ingested.errors?.[0]?.extensions.code).toBe('EDGE_NOT_REVERTIBLE');
    expect(await edgesBetween('e30', 'e34')).toHaveLength(1);
    const missing = await gql(server.url, REVERT, edge('e30', 'e33'), keyOf(admin));
    expect(missing.errors?.[0]?.extensions.code).toBe('EDGE_NOT_FOUND');
    const fact = await gql(server.url, ACCEPT, edge('e30', 'e34'), keyOf(admin));
    expect(fact.errors?.[0]?.extensions.code).toBe('EDGE_EXISTS');
  });

  it('writes one edge when the same prediction is accepted by concurrent requests', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => gql(server.url, ACCEPT, edge('e70', 'e71'), keyOf(admin))),
    );
    expect(results.map((r) => r.errors)).toEqual(results.map(() => undefined));
    expect(await edgesBetween('e70', 'e71')).toHaveLength(1);
  });

  it('accepts a batch all or nothing', async () => {
    const ok = await gql<{ acceptPredictions: unknown[] }>(
      server.url,
      ACCEPT_MANY,
      { items: [edge('e40', 'e41'), edge('e40', 'e42')] },
      keyOf(admin),
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data!.acceptPredictions).toHaveLength(2);
    const bad = await gql(
      server.url,
      ACCEPT_MANY,
      { items: [edge('e50', 'e51'), { ...edge('e50', 'x'), tail: 'nobody' }] },
      keyOf(admin),
    );
    expect(bad.errors?.[0]?.extensions.code).toBe('ENTITY_NOT_FOUND');
    expect(bad.errors?.[0]?.message).toMatch(/items\[1\]\.tail/);
    expect(await edgesBetween('e50', 'e51')).toHaveLength(0);
    const tooMany = await gql(
      server.url,
      ACCEPT_MANY,
      { items: Array.from({ length: 501 }, () => edge('e50', 'e51')) },
      keyOf(admin),
    );
    expect(tooMany.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('refuses unknown entities and relations, and names with control characters', async () => {
    const entity = await gql(server.url, ACCEPT, edge('e1', 'ghost'), keyOf(admin));
    expect(entity.errors?.[0]?.extensions.code).toBe('ENTITY_NOT_FOUND');
    const relation = await gql(
      server.url,
      ACCEPT,
      { ...edge('e1', 'e2'), relation: 'not_a_relation' },
      keyOf(admin),
    );
    expect(relation.errors?.[0]?.extensions.code).toBe('UNKNOWN_RELATION');
    const control = await gql(
      server.url,
      ACCEPT,
      { ...edge('e1', 'e2'), relation: 'bad\nname' },
      keyOf(admin),
    );
    expect(control.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(control.errors?.[0]?.message).toMatch(/relation contains a control character/);
    // A relation only the graph has (added after training) is fine: the score is null.
    const later = graph.id('added_later');
    await new TripleWriter(db).writeEdges([[graph.id('e1'), later, graph.id('e2')]]);
    const unscored = await gql<{ acceptPrediction: { logit: number | null } }>(
      server.url,
      ACCEPT,
      { ...edge('e1', 'e3'), relation: later },
      keyOf(admin),
    );
    expect(unscored.errors).toBeUndefined();
    expect(unscored.data!.acceptPrediction.logit).toBeNull();
  });

  it('lists every decision newest first, by kind, with cursor pagination', async () => {
    const all: Decision[] = [];
    let after: string | null = null;
    for (;;) {
      const page: {
        data?: {
          decisions: { items: Decision[]; endCursor: string | null; hasMore: boolean };
        } | null;
      } = await gql(server.url, DECISIONS, { first: 2, after }, keyOf(admin));
      all.push(...page.data!.decisions.items);
      if (!page.data!.decisions.hasMore) break;
      after = page.data!.decisions.endCursor;
    }
    const ours = all.filter((d) => d.head.endsWith(tag));
    const kinds = ours.map((d) => d.kind);
    // Newest first: the batch accepts were the last decisions of the earlier tests.
    expect(kinds.slice(0, 3)).toEqual(['ACCEPT', 'ACCEPT', 'ACCEPT']);
    expect(new Set(kinds)).toEqual(new Set(['ACCEPT', 'REJECT', 'UNDO_REJECTION', 'REVERT']));
    expect(ours.every((d) => d.by === 'alice')).toBe(true);
    const reject = ours.find((d) => d.kind === 'REJECT' && d.reason === 'wrong class');
    expect(reject?.modelVersion).toBe(graph.modelDir.split('/').pop());
    const ats = all.map((d: Decision & { at?: string }) => Date.parse((d as { at: string }).at));
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);

    const reverts = await gql<{ decisions: { items: Decision[] } }>(
      server.url,
      DECISIONS,
      { first: 50, kind: 'REVERT' },
      keyOf(admin),
    );
    expect(reverts.data!.decisions.items.every((d) => d.kind === 'REVERT')).toBe(true);
    const badCursor = await gql(server.url, DECISIONS, { after: 'nonsense' }, keyOf(admin));
    expect(badCursor.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('checks each role against each operation', async () => {
    const wrongKey = 'kgc_this-is-not-a-configured-key';
    const cases: [string | undefined, string, string | undefined][] = [
      // [key, operation, expected error code (undefined: allowed)]
      [undefined, 'query', 'UNAUTHENTICATED'],
      [undefined, 'mutation', 'UNAUTHENTICATED'],
      [wrongKey, 'query', 'UNAUTHENTICATED'],
      [wrongKey, 'mutation', 'UNAUTHENTICATED'],
      [keyOf(reader), 'query', undefined],
      [keyOf(reader), 'mutation', 'FORBIDDEN'],
      [keyOf(reader), 'decisions', 'FORBIDDEN'],
      [keyOf(admin), 'query', undefined],
      [keyOf(admin), 'mutation', undefined],
      [keyOf(admin), 'decisions', undefined],
    ];
    for (const [key, operation, code] of cases) {
      const text = operation === 'query' ? MISSING : operation === 'mutation' ? REJECT : DECISIONS;
      const variables =
        operation === 'query'
          ? { entity: graph.id('e60'), relation: graph.similar }
          : operation === 'mutation'
            ? edge('e60', 'e61')
            : {};
      const result = await gql(server.url, text, variables, key);
      expect([operation, key === undefined, result.errors?.[0]?.extensions.code]).toEqual([
        operation,
        key === undefined,
        code,
      ]);
      if (code === 'UNAUTHENTICATED') expect(result.status).toBe(401);
    }
  });
});

describe('without API keys', () => {
  it('allows anonymous reads and refuses every mutation with FORBIDDEN', async () => {
    const server = await startServer(testServerConfig(), { migrationsDir: MIGRATIONS });
    try {
      const read = await gql(server.url, '{ health { status } }');
      expect(read.errors).toBeUndefined();
      const write = await gql(server.url, REJECT, { head: 'a', relation: 'b', tail: 'c' });
      expect(write.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
      expect(write.errors?.[0]?.message).toMatch(/kgc apikey create/);
    } finally {
      await server.stop();
    }
  });

  it('with keys and KGC_ANONYMOUS_READS=true, reads need no key but mutations do', async () => {
    const server = await startServer(
      testServerConfig({ KGC_API_KEYS: admin.entry, KGC_ANONYMOUS_READS: 'true' }),
      { migrationsDir: MIGRATIONS },
    );
    try {
      expect((await gql(server.url, '{ health { status } }')).errors).toBeUndefined();
      const write = await gql(server.url, REJECT, { head: 'a', relation: 'b', tail: 'c' });
      expect(write.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    } finally {
      await server.stop();
    }
  });
});
