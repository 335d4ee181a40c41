import { performance } from 'node:perf_hooks';
import { summarize } from '../api/harness/load';
import type { LoadResult, Sample } from '../api/harness/load';

/** What the responses said about the version that answered them. */
export class VersionWatch {
  /** performance.now() of the first response answered by `target`. */
  firstTargetAt: number | undefined;
  /** Responses whose predictions carry two versions (must stay 0). */
  mixed = 0;
  /** Responses by the old version that arrived after the first by the new one. */
  oldAfterSwap = 0;
  readonly seen = new Map<string, number>();
  target: string | undefined;

  onBody = (body: string, at: number): void => {
    let versions: Set<string>;
    try {
      const parsed = JSON.parse(body) as { data?: { missingLinks?: { modelVersion: string }[] } };
      versions = new Set((parsed.data?.missingLinks ?? []).map((p) => p.modelVersion));
    } catch {
      return;
    }
    if (versions.size > 1) this.mixed += 1;
    for (const v of versions) {
      this.seen.set(v, (this.seen.get(v) ?? 0) + 1);
      if (v === this.target && this.firstTargetAt === undefined) this.firstTargetAt = at;
      if (v !== this.target && this.firstTargetAt !== undefined) this.oldAfterSwap += 1;
    }
  };
}

export interface Window {
  name: string;
  seconds: number;
  responses: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * The responses of a steady run cut into: before the promotion (after `skipMs` of settling),
 * the swap window (from the promotion until `afterMs` past the first response by the new
 * version: the follower's poll, the load of the new version, the first answers), and after.
 */
export function swapWindows(
  load: LoadResult,
  runStart: number,
  promotedAt: number,
  swappedAt: number | undefined,
  options: { skipMs: number; afterMs: number },
): Window[] {
  const end = runStart + load.seconds * 1000;
  const swapEnd = Math.min(end, (swappedAt ?? end) + options.afterMs);
  const cut = (name: string, from: number, to: number): Window => {
    const inside = load.samples.filter((s: Sample) => s.at >= from && s.at < to);
    const stats = summarize(inside.map((s) => s.ms));
    return {
      name,
      seconds: (to - from) / 1000,
      responses: inside.length,
      p50: stats.p50,
      p99: stats.p99,
      max: stats.max,
    };
  };
  return [
    cut('before the promotion', runStart + options.skipMs, promotedAt),
    cut('swap window (promotion .. first new answer + 1 s)', promotedAt, swapEnd),
    cut('after the swap', swapEnd, Math.max(swapEnd, end)),
  ];
}

export const now = () => performance.now();
