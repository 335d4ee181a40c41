import path from 'node:path';
import { Database } from '../../src/graph';
import { suggestVersion } from '../../src/jobs/suggest-version';
import { readSuggestionsFile } from '../../src/model';
import { createApiKey } from '../../src/server/api-keys';
import { startServer } from '../../src/server/start-server';
import { gql, MIGRATIONS, ServedGraph, trainServedGraph } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

jest.setTimeout(120_000);

const admin = createApiKey('alice', 'admin');
const reader = createApiKey('bob', 'reader');

const QUEUE = `query($relation: String!, $direction: Direction, $first: Int, $after: String, $min: Float) {
  reviewQueue(relation: $relation, direction: $direction, first: $first, after: $after, minProbability: $min) {
    items { head { id properties } relation tail { id } direction probability logit modelVersion typeConsistent }
    endCursor hasMore pending
  }
}`;
const WITH_REASONS = `query($relation: String!) {
  reviewQueue(relation: $relation, first: 3) { items { head { id } tail { id } reasons { kind edges { head relation tail } } } }
}`;
const STATS = `query($relation: String!) {
  reviewStats(relation: $relation) {
    relation pending accepted rejected buckets { from to accepted rejected acceptanceRate meanProbability }
  }
}`;
const ACCEPT = `mutation($head: String!, $relation: String!, $tail: String!) {
  acceptPrediction(head: $head, relation: $relation, tail: $tail) { head probability }
}`;
const REJECT = `mutation($head: String!, $relation: String!, $tail: String!) {
  rejectPrediction(head: $head, relation: $relation, tail: $tail, reason: "wrong") { head }
}`;

interface Item {
  head: { id: string; properties?: unknown };
  tail: { id: string };
  relation: string;
  direction: string;
  probability: number;
  logit: number;
  modelVersion: string;
}
interface Page {
  items: Item[];
  endCursor: string | null;
  hasMore: boolean;
  pending: number;
}

describe('reviewQueue and reviewStats over HTTP', () => {
  const tag = uniqueId('rq');
  let graph: ServedGraph;
  let db: Database;
  let server: Awaited<ReturnType<typeof startServer>>;
  let version: string;

  const page = async (variables: Record<string, unknown>, as = reader.key) => {
    const result = await gql<{ reviewQueue: Page }>(server.url, QUEUE, variables, as);
    expect(result.errors).toBeUndefined();
    return result.data!.reviewQueue;
  };
  const everything = async (variables: Record<string, unknown>, first: number) => {
    const items: Item[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 100; guard++) {
      const p: Page = await page({ ...variables, first, after });
      items.push(...p.items);
      expect(p.items.length).toBeLessThanOrEqual(first);
      if (!p.hasMore) break;
      expect(p.items).toHaveLength(first);
      after = p.endCursor;
    }
    return items;
  };
  const edgeKey = (i: { head: { id: string }; tail: { id: string } }) =>
    `${i.head.id}>${i.tail.id}`;

  beforeAll(async () => {
    db = testDatabase();
    graph = await trainServedGraph(db, tag);
    version = path.basename(graph.modelDir);
    await suggestVersion(db, graph.modelDir, version, { perRelation: 40 });
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

  it('pages every stored suggestion once, most probable first, with no gap across pages', async () => {
    const stored = readSuggestionsFile(graph.modelDir)!;
    const tails = stored.relations.find(
      (r) => r.relation === graph.similar && r.direction === 'tail',
    )!;
    const all = await everything({ relation: graph.similar }, 7);
    expect(all).toHaveLength(tails.rows.length);
    expect(new Set(all.map(edgeKey)).size).toBe(all.length);
    for (let i = 1; i < all.length; i++)
      expect(all[i - 1]!.probability).toBeGreaterThanOrEqual(all[i]!.probability);
    expect(all.map((i) => i.probability)).toEqual(tails.rows.map((r) => r[3]));
    expect(all[0]).toMatchObject({
      relation: graph.similar,
      direction: 'TAIL',
      modelVersion: version,
    });
    expect(all[0]!.head.properties).toEqual(expect.any(Object));
    const first = await page({ relation: graph.similar, first: 5 });
    expect(first.pending).toBe(tails.rows.length);

    const heads = await everything({ relation: graph.similar, direction: 'HEAD' }, 50);
    expect(heads[0]!.direction).toBe('HEAD');
    expect(heads.length).toBe(
      stored.relations.find((r) => r.relation === graph.similar && r.direction === 'head')!.rows
        .length,
    );

    const median = all[Math.floor(all.length / 2)]!.probability;
    const high = await everything({ relation: graph.similar, min: median }, 200);
    expect(high.length).toBe(all.filter((i) => i.probability >= median).length);
    expect(high.every((i) => i.probability >= median)).toBe(true);
    // Both lists read are held (within the bound), and /metrics says how many suggestions.
    const metrics = await (await fetch(server.url.replace(/\/graphql$/, '/metrics'))).text();
    expect(metrics).toMatch(
      new RegExp(`^kgc_suggestions_held ${tails.rows.length + heads.length}$`, 'm'),
    );
  });

  it('an accepted and a rejected item leave the queue at once; paging skips them without gaps', async () => {
    const before = await everything({ relation: graph.similar }, 200);
    const [accepted, , rejected] = before as [Item, Item, Item];
    const edge = (i: Item) => ({ head: i.head.id, relation: graph.similar, tail: i.tail.id });
    expect((await gql(server.url, ACCEPT, edge(accepted), admin.key)).errors).toBeUndefined();
    expect((await gql(server.url, REJECT, edge(rejected), admin.key)).errors).toBeUndefined();
    const top = await page({ relation: graph.similar, first: 3 });
    expect(top.items.map(edgeKey)).toEqual(
      [before[1], before[3], before[4]].map((i) => edgeKey(i!)),
    );
    expect(top.pending).toBe(before.length - 2);
    const after = await everything({ relation: graph.similar }, 2);
    expect(after.map(edgeKey)).toEqual(
      before.filter((i) => i !== accepted && i !== rejected).map(edgeKey),
    );

    const stats = await gql<{
      reviewStats: Record<string, unknown> & { buckets: Record<string, number | null>[] };
    }>(server.url, STATS, { relation: graph.similar }, reader.key);
    expect(stats.errors).toBeUndefined();
    const s = stats.data!.reviewStats;
    expect(s).toMatchObject({ relation: graph.similar, accepted: 1, rejected: 1 });
    expect(s.buckets).toHaveLength(10);
    expect(s.buckets.reduce((n, b) => n + (b.accepted as number), 0)).toBe(1);
    expect(s.buckets.reduce((n, b) => n + (b.rejected as number), 0)).toBe(1);
    for (const b of s.buckets) {
      expect((b.to as number) - (b.from as number)).toBeCloseTo(0.1, 9);
      const n = (b.accepted as number) + (b.rejected as number);
      if (n === 0) expect(b.acceptanceRate).toBeNull();
      else {
        expect(b.acceptanceRate).toBe((b.accepted as number) / n);
        expect(b.meanProbability).toBeGreaterThanOrEqual(b.from as number);
        expect(b.meanProbability).toBeLessThanOrEqual(b.to as number);
      }
    }
    // Distinct edges of both directions, minus the two decided.
    const stored = readSuggestionsFile(graph.modelDir)!;
    const { loadServingModel } = await import('../../src/model');
    const ids = (await loadServingModel(graph.modelDir)).scorer.entities;
    const distinct = new Set(
      stored.relations
        .filter((r) => r.relation === graph.similar)
        .flatMap((r) => r.rows.map(([h, t]) => `${ids[h]}>${ids[t]}`)),
    );
    expect(s.pending).toBe(distinct.size - 2);
  });

  it('answers reasons for each item through the reasons loader', async () => {
    const result = await gql<{ reviewQueue: { items: { reasons: unknown[] }[] } }>(
      server.url,
      WITH_REASONS,
      { relation: graph.similar },
      reader.key,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data!.reviewQueue.items).toHaveLength(3);
    const reasons = result.data!.reviewQueue.items.flatMap((i) => i.reasons) as {
      kind: string;
      edges: { relation: string }[];
    }[];
    // No rules were mined with this model: the reasons are known edges of similar entities.
    expect(reasons.length).toBeGreaterThan(0);
    for (const r of reasons) {
      expect(r.kind).toBe('SIMILAR_ENTITY');
      expect(r.edges[0]!.relation).toBe(graph.similar);
    }
  });

  it('refuses a bad first, a foreign cursor, a stale cursor and an unknown relation, naming them', async () => {
    const ask = (variables: Record<string, unknown>) =>
      gql(server.url, QUEUE, variables, reader.key);
    for (const first of [0, 201]) {
      const r = await ask({ relation: graph.similar, first });
      expect(r.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
      expect(r.errors?.[0]?.message).toMatch(/Argument first must be from 1 to 200/);
    }
    const junk = await ask({ relation: graph.similar, after: 'not-a-cursor' });
    expect(junk.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(junk.errors?.[0]?.message).toMatch(/Argument after/);
    const { endCursor } = await page({ relation: graph.similar, first: 2 });
    const other = await ask({ relation: graph.isA, after: endCursor });
    expect(other.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const decoded = JSON.parse(Buffer.from(endCursor!, 'base64url').toString()) as unknown[];
    decoded[1] = 'v20200101T000000Z-000000';
    const stale = await ask({
      relation: graph.similar,
      after: Buffer.from(JSON.stringify(decoded)).toString('base64url'),
    });
    expect(stale.errors?.[0]?.extensions.code).toBe('STALE_CURSOR');
    expect(stale.errors?.[0]?.message).toMatch(/start again without after/);
    const unknown = await ask({ relation: `nope_${tag}` });
    expect(unknown.errors?.[0]?.extensions.code).toBe('UNKNOWN_RELATION');
    const badP = await ask({ relation: graph.similar, min: 1.5 });
    expect(badP.errors?.[0]?.message).toMatch(/minProbability/);
  });

  it('lets a reader read the queue and refuses an anonymous caller', async () => {
    const anonymous = await gql(server.url, QUEUE, { relation: graph.similar });
    expect(anonymous.status).toBe(401);
    expect(anonymous.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect((await gql(server.url, STATS, { relation: graph.similar })).status).toBe(401);
    expect((await page({ relation: graph.similar, first: 1 })).items).toHaveLength(1);
  });
});
