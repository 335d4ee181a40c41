import { latestDecisions } from '../graph';
import type { Database } from '../graph';
import type { ServingModel } from '../model';
import type { ReviewBucket, ReviewStats } from '../schema/review-stats.type';
import { countPending } from './review-queue';

const BUCKETS = 10;

/**
 * Decisions on a relation's stored suggestions (either direction; an edge suggested both ways
 * counts once): the latest accept or reject of each, counted per bucket of the probability
 * recorded when it was decided (the stored one where none was recorded), beside the undecided.
 */
export async function reviewStats(
  db: Database,
  model: ServingModel,
  relation: string,
): Promise<ReviewStats> {
  model.scorer.relation(relation);
  const stored = new Map<string, { head: string; tail: string; probability: number }>();
  for (const direction of ['tail', 'head'] as const) {
    for (const s of model.suggestions?.list(relation, direction)?.items ?? []) {
      const key = `${s.head}\u0000${s.tail}`;
      const known = stored.get(key);
      if (!known || s.probability > known.probability) stored.set(key, s);
    }
  }
  const edges = [...stored.values()];
  const decisions = edges.length > 0 ? await latestDecisions(db, relation) : [];
  const buckets: (ReviewBucket & { sum: number })[] = Array.from({ length: BUCKETS }, (_, i) => ({
    from: i / BUCKETS,
    to: (i + 1) / BUCKETS,
    accepted: 0,
    rejected: 0,
    acceptanceRate: null,
    meanProbability: null,
    sum: 0,
  }));
  let accepted = 0;
  let rejected = 0;
  for (const d of decisions) {
    const s = stored.get(`${d.head}\u0000${d.tail}`);
    if (!s) continue;
    const p = d.probability ?? s.probability;
    const bucket = buckets[Math.min(BUCKETS - 1, Math.max(0, Math.floor(p * BUCKETS)))];
    if (!bucket) continue;
    bucket.sum += p;
    if (d.kind === 'ACCEPT') {
      bucket.accepted++;
      accepted++;
    } else {
      bucket.rejected++;
      rejected++;
    }
  }
  return {
    relation,
    countPending: () => countPending(db, relation, edges),
    accepted,
    rejected,
    buckets: buckets.map(({ sum, ...b }) => {
      const n = b.accepted + b.rejected;
      return {
        ...b,
        acceptanceRate: n > 0 ? b.accepted / n : null,
        meanProbability: n > 0 ? sum / n : null,
      };
    }),
  };
}
