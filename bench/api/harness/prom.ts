/** Sums and counts of the server's Prometheus histograms, read from /metrics. */
export type Snapshot = Map<string, number>;

/** Reads /metrics into `name{labels}` -> value (histogram `_sum` and `_count` series only). */
export async function scrape(base: string): Promise<Snapshot> {
  const response = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  const snapshot: Snapshot = new Map();
  for (const line of (await response.text()).split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^(\w+(?:_sum|_count))(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (match) snapshot.set(`${match[1]}${match[2] ?? ''}`, Number(match[3]));
  }
  return snapshot;
}

/**
 * Sum of `metric` series (e.g. `kgc_scoring_duration_seconds_sum`) whose labels contain every
 * `label="value"` given, after minus before.
 */
export function delta(
  before: Snapshot,
  after: Snapshot,
  metric: string,
  labels: Record<string, string> = {},
): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let total = 0;
  for (const [key, value] of after) {
    const name = key.split('{')[0];
    if (name !== metric) continue;
    if (!wanted.every((w) => key.includes(w))) continue;
    total += value - (before.get(key) ?? 0);
  }
  return total;
}

/** What the server spent per request of one operation between two scrapes. */
export interface Breakdown {
  requests: number;
  /** Server-side request latency, mean, ms (from the request histogram). */
  serverMeanMs: number;
  /** Neo4j read transactions per request (below 1 when concurrent requests share a read). */
  readsPerRequest: number;
  /** Mean Neo4j read transaction, ms. */
  readMeanMs: number;
  /** Engine scoring calls per request (below 1 when batched). */
  scoringCallsPerRequest: number;
  /** Mean engine scoring call, ms. */
  scoringMeanMs: number;
  /**
   * Mean latency less one read and one scoring call (each request waits for exactly one of
   * each, its batch's): GraphQL parse/validate/execute, HTTP, batching wait, event-loop queueing.
   */
  restMs: number;
}

export function breakdown(before: Snapshot, after: Snapshot, operation: string): Breakdown {
  const op = { operation };
  const requests = delta(before, after, 'kgc_request_duration_seconds_count', op);
  const requestSum = delta(before, after, 'kgc_request_duration_seconds_sum', op);
  const reads = delta(before, after, 'kgc_neo4j_read_duration_seconds_count');
  const readSum = delta(before, after, 'kgc_neo4j_read_duration_seconds_sum');
  const calls = delta(before, after, 'kgc_scoring_duration_seconds_count');
  const scoringSum = delta(before, after, 'kgc_scoring_duration_seconds_sum');
  const per = (a: number, b: number) => (b > 0 ? a / b : 0);
  const serverMeanMs = per(requestSum, requests) * 1000;
  const readMeanMs = per(readSum, reads) * 1000;
  const scoringMeanMs = per(scoringSum, calls) * 1000;
  return {
    requests,
    serverMeanMs,
    readsPerRequest: per(reads, requests),
    readMeanMs,
    scoringCallsPerRequest: per(calls, requests),
    scoringMeanMs,
    restMs: serverMeanMs - readMeanMs - scoringMeanMs,
  };
}
