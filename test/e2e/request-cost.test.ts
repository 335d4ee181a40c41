import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, TripleWriter } from '../../src/graph';
import { resolveTrainingConfig, train } from '../../src/model';
import { startServer, StartedServer } from '../../src/server/start-server';
import { classGraph } from '../support/generated-graph';
import { gql, MIGRATIONS } from '../support/served-model';
import { testDatabase, testServerConfig, uniqueId } from '../support/test-database';

/**
 * Entities the model scores against (only the class graph's are in Neo4j): wide enough that a
 * batch of 256 queries keeps the engine busy for a while on any machine.
 */
const MODEL_ENTITIES = 200_000;

const BATCH = `query($q: [MissingLinksInput!]!) {
  missingLinksBatch(queries: $q) { entity { id } logit }
}`;

/** The attack: 30 aliases (KGC_MAX_ALIASES) of a 256-query batch at k 1000. */
const ATTACK = `query($q: [MissingLinksInput!]!) {
${Array.from({ length: 30 }, (_, i) => `  a${i}: missingLinksBatch(queries: $q) { entity { id } logit }`).join('\n')}
}`;

/** The same, hidden in a fragment and an inline fragment. */
const ATTACK_IN_FRAGMENTS = `query($q: [MissingLinksInput!]!) {
  ...F
  ... on Query { b: missingLinksBatch(queries: $q) { logit } }
}
fragment F on Query {
${Array.from({ length: 20 }, (_, i) => `  a${i}: missingLinksBatch(queries: $q) { logit }`).join('\n')}
}`;

async function scoringCalls(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return [...text.matchAll(/^kgc_scoring_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

describe('one request has a bounded cost', () => {
  const tag = uniqueId('cost');
  const id = (name: string) => `${name}_${tag}`;
  const modelDir = fs.mkdtempSync(path.join(os.tmpdir(), `kgc-model-${tag}-`));
  let db: Database;
  let server: StartedServer;
  let base: string;
  let heads: string[];

  beforeAll(async () => {
    db = testDatabase();
    const triples = classGraph(64).map(([h, r, t]) => [id(h), id(r), id(t)] as const);
    await new TripleWriter(db).writeEdges(triples.map(([h, r, t]) => [h, r, t]));
    const names = [...new Set(triples.flatMap(([h, , t]) => [h, t]))];
    heads = [...new Set(triples.map(([h]) => h))];
    const entities = [
      ...names,
      ...Array.from({ length: MODEL_ENTITIES - names.length }, (_, i) => id(`pad${i}`)),
    ];
    const relations = [id('is_a'), id('similar_to')];
    const ids = Uint32Array.from(
      triples.flatMap(([h, r, t]) => [
        entities.indexOf(h),
        relations.indexOf(r),
        entities.indexOf(t),
      ]),
    );
    await train(
      { entities, relations, train: ids, valid: ids.slice(0, 30), test: ids.slice(0, 30) },
      resolveTrainingConfig('default', {
        entityDim: 64,
        relationDim: 8,
        epochs: 1,
        evalEvery: 0,
        threads: 2,
      }),
      { outDir: modelDir },
    );
    server = await startServer(testServerConfig(), { migrationsDir: MIGRATIONS, modelDir });
    // Timed once ready: the start-up warm-up would compete with the probes.
    await server.warmedUp;
    base = server.url.replace(/\/graphql$/, '');
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await db?.write((tx) =>
      tx.run('MATCH (e:Entity) WHERE e.id ENDS WITH $tag DETACH DELETE e', { tag }),
    );
    await db?.close();
    fs.rmSync(modelDir, { recursive: true, force: true });
  });

  const queries = (n: number, k: number) =>
    Array.from({ length: n }, (_, i) => ({
      entity: heads[i % heads.length],
      relation: id(i % 2 ? 'is_a' : 'similar_to'),
      k,
    }));

  it('refuses the 30-alias, 256-query, k 1000 attack before any scoring, with QUERY_TOO_COSTLY', async () => {
    const before = await scoringCalls(base);
    for (const query of [ATTACK, ATTACK_IN_FRAGMENTS]) {
      const started = performance.now();
      const result = await gql(server.url, query, { q: queries(256, 1000) });
      const ms = performance.now() - started;
      expect(result.status).toBe(400);
      expect(result.data ?? undefined).toBeUndefined();
      expect(result.errors).toHaveLength(1);
      const [error] = result.errors!;
      expect(error!.extensions.code).toBe('QUERY_TOO_COSTLY');
      // Names its cost, the limit (and where it is set) and what to do.
      expect(error!.message).toMatch(
        /costs \d+ units, over the limit of 20000 \(KGC_MAX_QUERY_COST/,
      );
      expect(error!.message).toMatch(/lower k/);
      expect(ms).toBeLessThan(2000);
    }
    const cost = 30 * 256 * (1000 + 50);
    const again = await gql(server.url, ATTACK, { q: queries(256, 1000) });
    expect(again.errors![0]!.message).toContain(`costs ${cost} units`);
    expect(await scoringCalls(base)).toBe(before);
  });

  it('counts defaults and excludeConnected, and answers requests under the limit', async () => {
    // 256 queries at the default k (10): 256 x 60 = 15,360, under 20,000.
    const ok = await gql<{ missingLinksBatch: unknown[][] }>(server.url, BATCH, {
      q: queries(256, 10).map(({ entity, relation }) => ({ entity, relation })),
    });
    expect(ok.errors).toBeUndefined();
    expect(ok.data!.missingLinksBatch).toHaveLength(256);
    expect(ok.data!.missingLinksBatch[0]).toHaveLength(10);
    // The same with excludeConnected on each: 256 x 1,060, refused.
    const connected = await gql(server.url, BATCH, {
      q: queries(256, 10).map((q) => ({ ...q, excludeConnected: true })),
    });
    expect(connected.errors![0]!.extensions.code).toBe('QUERY_TOO_COSTLY');
    // One query at the largest k, excludeConnected included, is well under.
    const one = await gql<{ missingLinks: unknown[] }>(
      server.url,
      `query($e: String!, $r: String!) { missingLinks(entity: $e, relation: $r, k: 1000, excludeConnected: true) { logit } }`,
      { e: heads[0], r: id('is_a') },
    );
    expect(one.errors).toBeUndefined();
    expect(one.data!.missingLinks).toHaveLength(1000);
  });

  it('counts reasons per answer row, through fragments, before any read', async () => {
    // 64 queries at k 10 with reasons: 64 x (60 + 10 x 20) = 16,640, under 20,000.
    const withReasons = `query($q: [MissingLinksInput!]!) {
      missingLinksBatch(queries: $q) { ...P }
    }
    fragment P on Prediction { logit reasons { kind } }`;
    const ok = await gql<{ missingLinksBatch: unknown[][] }>(server.url, withReasons, {
      q: queries(64, 10).map(({ entity, relation }) => ({ entity, relation })),
    });
    expect(ok.errors).toBeUndefined();
    expect(ok.data!.missingLinksBatch).toHaveLength(64);
    const before = await scoringCalls(base);
    // The 256 queries that pass without reasons (15,360) cost 66,560 with them: refused.
    const refused = await gql(server.url, withReasons, {
      q: queries(256, 10).map(({ entity, relation }) => ({ entity, relation })),
    });
    expect(refused.errors![0]!.extensions.code).toBe('QUERY_TOO_COSTLY');
    expect(refused.errors![0]!.message).toContain('costs 66560 units');
    expect(await scoringCalls(base)).toBe(before);
  });

  it('keeps /healthz fast while heavy batches saturate the scorer', async () => {
    const heavy = { q: queries(256, 1) };
    const latencies: number[] = [];
    let running = true;
    const worker = async () => {
      while (running) {
        const started = performance.now();
        const result = await gql(server.url, BATCH, heavy);
        if (result.errors) throw new Error(JSON.stringify(result.errors));
        latencies.push(performance.now() - started);
      }
    };
    // Eight at once: from 100,000 entities a pass reads 8-bit rows (a quarter of the bytes), so
    // it takes more requests in flight than before to keep the scorer saturated.
    const workers = Array.from({ length: 8 }, worker);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const probes: number[] = [];
    const until = performance.now() + 4000;
    while (performance.now() < until) {
      const started = performance.now();
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      probes.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    running = false;
    await Promise.all(workers);

    latencies.sort((a, b) => a - b);
    // The scorer was saturated: each heavy request spent far longer than the bound in flight,
    // so scoring on the event loop would have held some probe past it.
    const heavyMedian = latencies[Math.floor(latencies.length / 2)] as number;
    expect(heavyMedian).toBeGreaterThan(400);
    probes.sort((a, b) => a - b);
    expect(probes.length).toBeGreaterThan(20);
    // The 50 ms target is the bench's (a quiet machine); here the bound is generous, and one
    // probe in ten may lose its core to the scoring threads on a loaded machine. A few probes
    // may wait as long as half a batch (CI saw one of 581 ms, and once two near 300 ms, on 2
    // cores shared with jest's other worker and Neo4j); scoring on the event loop holds nearly
    // every probe that long.
    expect(probes[Math.floor(probes.length * 0.9)]).toBeLessThan(200);
    const long = probes.filter((p) => p >= heavyMedian / 2).length;
    expect(long).toBeLessThanOrEqual(Math.max(2, Math.floor(probes.length * 0.05)));
  }, 60_000);

  it('exposes event-loop lag, and it sees a stall', async () => {
    const stall = performance.now() + 300;
    while (performance.now() < stall) {
      // Busy: the event loop of this process (the server's) is held for 300 ms.
    }
    const text = await (await fetch(`${base}/metrics`)).text();
    const max = /^kgc_nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text);
    expect(Number(max?.[1])).toBeGreaterThan(0.25);
    expect(text).toMatch(/^kgc_nodejs_eventloop_lag_p99_seconds \S+/m);
  });
});
