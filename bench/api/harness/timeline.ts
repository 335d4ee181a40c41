import { percentile } from './load';

/** A latency observed at a moment: `at` epoch ms (when it ended), `ms` how long it took. */
export interface TimedLatency {
  at: number;
  ms: number;
}

/** One bucket of a timeline: seconds from the reference moment, latency percentiles in ms. */
export interface Bucket {
  /** Start of the bucket, seconds after the reference (e.g. /readyz's first 200). */
  from: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Latencies ending in [start, end) (epoch ms) in buckets of `seconds`, timed from `reference`:
 * how a phase's latency moves while the server settles (a warm-up shows as a falling p50).
 */
export function timeline(
  points: readonly TimedLatency[],
  reference: number,
  start: number,
  end: number,
  seconds = 1,
): Bucket[] {
  const width = seconds * 1000;
  const count = Math.max(0, Math.ceil((end - start) / width));
  const buckets: number[][] = Array.from({ length: count }, () => []);
  for (const p of points) {
    if (p.at < start || p.at >= end) continue;
    buckets[Math.floor((p.at - start) / width)]?.push(p.ms);
  }
  return buckets.map((ms, i) => {
    const sorted = [...ms].sort((a, b) => a - b);
    return {
      from: (start + i * width - reference) / 1000,
      requests: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1] ?? NaN,
    };
  });
}
