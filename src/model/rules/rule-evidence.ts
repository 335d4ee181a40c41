import type { GraphIndex } from './graph-index';
import type { Rule } from './rule-types';
import { reverseStep } from './graph-index';

/** A rule as a walk: body steps (2r: along an edge of r; 2r + 1: against one) and its confidence. */
export interface WalkRule {
  steps: readonly number[];
  confidence: number;
}

/** The rule evidence for one candidate answer of a query. */
export interface Evidence {
  /** The best confidence of the rules that reach it. */
  max: number;
  /** Noisy-or of those rules' confidences: 1 - Π(1 - c). */
  noisyOr: number;
  /** How many rules reach it. */
  rules: number;
}

/**
 * The rules' body walked backwards: a rule `body(x, y) ⇒ r(x, y)` read from y predicts x. For
 * the head query (?, r, t), walk these from t.
 */
export function reversedRule(rule: WalkRule): WalkRule {
  return { steps: [...rule.steps].reverse().map(reverseStep), confidence: rule.confidence };
}

/**
 * Calls `each(y)` once for every end y of a path from `x` that follows `steps` through distinct
 * nodes (y ≠ x), while fewer than `budget` index entries have been walked; returns the entries
 * left (≤ 0: the walk was cut short and some ends may be missing). Bodies of 1 to 3 steps.
 */
export function walkRule(
  index: GraphIndex,
  x: number,
  steps: readonly number[],
  budget: number,
  each: (y: number) => void,
): number {
  let left = budget;
  const seen = new Set<number>();
  const emit = (y: number) => {
    if (y === x || seen.has(y)) return;
    seen.add(y);
    each(y);
  };
  const [s1, s2, s3] = steps as [number, number | undefined, number | undefined];
  const [start1, end1] = index.range(x, s1);
  for (let e1 = start1; e1 < end1 && left > 0; e1++) {
    left--;
    const z1 = index.neighbour[e1] as number;
    if (s2 === undefined) {
      emit(z1);
      continue;
    }
    if (z1 === x) continue;
    const [start2, end2] = index.range(z1, s2);
    for (let e2 = start2; e2 < end2 && left > 0; e2++) {
      left--;
      const z2 = index.neighbour[e2] as number;
      if (z2 === x || z2 === z1) continue;
      if (s3 === undefined) {
        emit(z2);
        continue;
      }
      const [start3, end3] = index.range(z2, s3);
      for (let e3 = start3; e3 < end3 && left > 0; e3++) {
        left--;
        const y = index.neighbour[e3] as number;
        if (y !== z1 && y !== z2) emit(y);
      }
    }
  }
  return left;
}

/**
 * The evidence of `rules` (one relation's, one direction's, best first) for the answers of the
 * query from `x`: every entity some rule's body reaches from `x`, with the rules' confidences
 * aggregated. `budget`: index entries the question's walks may take together, the best rules
 * first (a hub's question stays within a serving request's time; a walk cut short keeps the
 * ends it found).
 */
export function ruleEvidence(
  index: GraphIndex,
  x: number,
  rules: readonly WalkRule[],
  budget: number,
): Map<number, Evidence> {
  const found = new Map<number, Evidence>();
  let left = budget;
  for (const rule of rules) {
    if (left <= 0) break;
    const c = rule.confidence;
    left = walkRule(index, x, rule.steps, left, (y) => {
      const seen = found.get(y);
      if (seen === undefined) {
        found.set(y, { max: c, noisyOr: c, rules: 1 });
      } else {
        seen.max = Math.max(seen.max, c);
        seen.noisyOr = 1 - (1 - seen.noisyOr) * (1 - c);
        seen.rules++;
      }
    });
  }
  return found;
}

/** One relation's rules as walks, both ways: `tail` from the query's head, `head` from its tail. */
export interface RelationWalks {
  tail: WalkRule[];
  head: WalkRule[];
}

/**
 * A version's rules as walks, indexed by relation id (the index in `relationNames`); a rule
 * naming a relation not there is left out.
 */
export function relationWalks(
  rules: Record<string, readonly Rule[]>,
  relationNames: readonly string[],
): RelationWalks[] {
  const ids = new Map(relationNames.map((name, i) => [name, i]));
  return relationNames.map((name) => {
    const tail: WalkRule[] = [];
    for (const rule of rules[name] ?? []) {
      const steps = rule.body.map((a) => {
        const id = ids.get(a.relation);
        return id === undefined ? -1 : 2 * id + (a.inverse ? 1 : 0);
      });
      if (steps.every((s) => s >= 0)) tail.push({ steps, confidence: rule.confidence });
    }
    return { tail, head: tail.map(reversedRule) };
  });
}
