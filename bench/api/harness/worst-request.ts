import fs from 'node:fs';
import http from 'node:http';
import {
  CONNECTED_COST,
  EDGE_COST,
  KNOWN_TAILS_PER_UNIT,
  SCORING_COST,
} from '../../../src/resolvers/query-cost';
import { summarize } from './load';
import type { LoadResult } from './load';
import type { Pair } from './workload';

/** The server's defaults (KGC_MAX_QUERY_COST, KGC_MAX_ALIASES, MAX_K): the bench serves them. */
const MAX_COST = 20_000;
/** The most edges one edgeProbabilities call takes. */
const MAX_EDGES = 1000;
const MAX_ALIASES = 30;
const MAX_K = 1000;

export interface WorstRequestResult {
  name: string;
  cost: number;
  queries: number;
  requests: number;
  errors: number;
  /** The first failed answer's start, to tell a refusal from a slow success. */
  firstError?: string;
  request: Pick<LoadResult, 'p50' | 'p90' | 'p99' | 'max' | 'mean'>;
  /** /healthz every 5 ms while the requests ran. */
  healthz: Pick<LoadResult, 'p50' | 'p90' | 'p99' | 'max' | 'mean'> & { probes: number };
}

/** The hub: the head of the most training triples (its known-edge reads are the largest). */
export function hubOf(trainFile: string): string | undefined {
  const degree = new Map<string, number>();
  for (const line of fs.readFileSync(trainFile, 'utf8').split('\n')) {
    const head = line.split('\t')[0];
    if (head) degree.set(head, (degree.get(head) ?? 0) + 1);
  }
  return [...degree].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/**
 * The costliest requests the limits allow: as many k = 1000 queries as the cost limit admits,
 * spread over the most aliases (most answer rows), and the same on the hub with excludeConnected
 * (largest graph reads).
 */
export function worstBodies(
  pairs: Pair[],
  trainFile: string,
): { name: string; cost: number; queries: number; body: string }[] {
  const hub = hubOf(trainFile) ?? (pairs[0] as Pair).entity;
  const hubPairs = pairs.filter((p) => p.entity === hub);
  const make = (name: string, connected: boolean, pick: (i: number) => Pair) => {
    const each = MAX_K + SCORING_COST + (connected ? CONNECTED_COST : 0);
    const n = Math.floor(MAX_COST / each);
    const aliases = Math.min(MAX_ALIASES, n);
    const queries = Array.from({ length: n }, (_, i) => ({
      ...pick(i),
      k: MAX_K,
      excludeConnected: connected,
    }));
    const fields = Array.from({ length: aliases }, (_, a) => {
      const share = queries.filter((_, i) => i % aliases === a);
      return `a${a}: missingLinksBatch(queries: ${JSON.stringify(share).replace(/"(\w+)":/g, '$1:')}) { entity { id } logit probability }`;
    });
    return {
      name,
      cost: n * each,
      queries: n,
      body: JSON.stringify({ query: `{ ${fields.join(' ')} }` }),
    };
  };
  return [
    hubEdgeProbabilities(hub, pairs, trainFile),
    make(
      `most rows: ${MAX_ALIASES} aliases, k ${MAX_K}`,
      false,
      (i) => pairs[(i * 7919) % pairs.length] as Pair,
    ),
    make(
      `hub ${hub} with excludeConnected, k ${MAX_K}`,
      true,
      (i) => hubPairs[i % hubPairs.length] as Pair,
    ),
  ];
}

/**
 * The costliest edgeProbabilities call (issue 59): 1,000 edges from the hub, over its relation
 * with the most known tails, to entities spread over the graph: each distinct (head, relation)'s
 * known tails are read once, and counted in the cost.
 */
function hubEdgeProbabilities(hub: string, pairs: Pair[], trainFile: string) {
  const tails = new Map<string, number>();
  for (const line of fs.readFileSync(trainFile, 'utf8').split('\n')) {
    const [h, r] = line.split('\t');
    if (h === hub && r) tails.set(r, (tails.get(r) ?? 0) + 1);
  }
  const [relation, known] = [...tails].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  const edges = Array.from({ length: MAX_EDGES }, (_, i) => ({
    head: hub,
    relation,
    tail: (pairs[(i * 7919) % pairs.length] as Pair).entity,
  }));
  return {
    name: `edgeProbabilities: ${MAX_EDGES} edges from hub ${hub} (${relation}, ${known} known tails)`,
    cost: MAX_EDGES * EDGE_COST + Math.ceil(known / KNOWN_TAILS_PER_UNIT),
    queries: MAX_EDGES,
    // Variables, as a client sends a long list (inline, it would pass the token limit).
    body: JSON.stringify({
      query:
        'query($edges: [EdgeInput!]!) { edgeProbabilities(edges: $edges) { probability rank exists } }',
      variables: { edges },
    }),
  };
}

function timedGet(agent: http.Agent, url: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        response.resume();
        response.on('end', () => resolve(performance.now() - started));
      })
      .on('error', reject);
  });
}

/** Sends each body `repeats` times, one at a time, while /healthz is probed every 5 ms. */
export async function timeWorstRequests(
  base: string,
  pairs: Pair[],
  trainFile: string,
  repeats: number,
): Promise<WorstRequestResult[]> {
  const agent = new http.Agent({ keepAlive: true });
  const results: WorstRequestResult[] = [];
  for (const worst of worstBodies(pairs, trainFile)) {
    const probes: number[] = [];
    let running = true;
    const prober = (async () => {
      while (running) {
        const due = performance.now() + 5;
        probes.push(await timedGet(agent, `${base}/healthz`));
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      }
    })();
    const times: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
    for (let i = 0; i < repeats; i++) {
      const started = performance.now();
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: worst.body,
      });
      const text = await response.text();
      times.push(performance.now() - started);
      if (response.status !== 200 || text.includes('"errors"')) {
        errors++;
        firstError ??= `${response.status} ${text.slice(0, 300)}`;
      }
    }
    running = false;
    await prober;
    times.sort((a, b) => a - b);
    probes.sort((a, b) => a - b);
    results.push({
      name: worst.name,
      cost: worst.cost,
      queries: worst.queries,
      requests: repeats,
      errors,
      ...(firstError !== undefined ? { firstError } : {}),
      request: summarize(times),
      healthz: { ...summarize(probes), probes: probes.length },
    });
  }
  agent.destroy();
  return results;
}
