import type { Direction } from '../direction';
import type { Native } from './native-engine';

export interface RankMetrics {
  /** Number of ranked queries (test triples in both directions). */
  count: number;
  mrr: number;
  /** Mean rank. */
  mr: number;
  hits1: number;
  hits3: number;
  hits10: number;
}

export interface RelationMetrics {
  relation: string;
  direction: Direction;
  metrics: RankMetrics;
}

/** Filtered ranking metrics; a tie counts as the mean of its optimistic and pessimistic rank. */
export interface Metrics {
  overall: RankMetrics;
  tail: RankMetrics;
  head: RankMetrics;
  perRelation: RelationMetrics[];
}

export function fromNativeMetrics(native: Native.MetricsJs): Metrics {
  return {
    overall: native.overall,
    tail: native.tail,
    head: native.head,
    perRelation: native.perRelation.map((r) => ({
      relation: r.relation,
      direction: r.direction === 'head' ? 'head' : 'tail',
      metrics: r.stats,
    })),
  };
}
