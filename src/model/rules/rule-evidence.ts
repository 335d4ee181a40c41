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

/** Per graph: the walk that last reached each node (walks run one at a time, synchronously). */
const marks = new WeakMap<GraphIndex, { walk: number; reached: Uint32Array }>();

function nextWalk(index: GraphIndex): { walk: number; reached: Uint32Array } {
  let mark = marks.get(index);
  if (!mark) {
    mark = { walk: 0, reached: new Uint32Array(index.nodes) };
    marks.set(index, mark);
  }
  if (mark.walk === 0xffffffff) {
    mark.reached.fill(0);
    mark.walk = 0;
  }
  mark.walk++;
  return mark;
}

/**
 * Calls `each(y)` once for every end y of a path from `x` that follows `steps` through distinct
 * nodes (y ≠ x), while fewer than `budget` index entries have been walked; returns the entries
 * left (≤ 0: the walk was cut short and some ends may be missing). A walk that has reached every
 * node its last step leads to stops there: nothing more could be found, so the budget left goes
 * to the question's next rule. Bodies of 1 to 3 steps.
 */
export function walkRule(
  index: GraphIndex,
  x: number,
  steps: readonly number[],
  budget: number,
  each: (y: number) => void,
): number {
  const { walk, reached } = nextWalk(index);
  const { neighbour, offsets } = index;
  const stepOf = index.step;
  const last = steps[steps.length - 1] as number;
  // Ends still to find (x is never one, though its last step may lead to it).
  const back = index.first(x, reverseStep(last));
  const leadsToX = back < (offsets[x + 1] as number) && stepOf[back] === reverseStep(last);
  let missing = index.endsOf(last) - (leadsToX ? 1 : 0);
  let left = budget;
  reached[x] = walk;
  const emit = (y: number) => {
    if (reached[y] === walk) return;
    reached[y] = walk;
    missing--;
    each(y);
  };
  // Each level runs over a node's entries by one step: from `first`, while the step holds.
  const [s1, s2, s3] = steps as [number, number | undefined, number | undefined];
  const end1 = offsets[x + 1] as number;
  for (let e1 = index.first(x, s1); e1 < end1 && stepOf[e1] === s1; e1++) {
    if (left <= 0 || missing <= 0) break;
    left--;
    const z1 = neighbour[e1] as number;
    if (s2 === undefined) {
      emit(z1);
      continue;
    }
    if (z1 === x) continue;
    const end2 = offsets[z1 + 1] as number;
    for (let e2 = index.first(z1, s2); e2 < end2 && stepOf[e2] === s2; e2++) {
      if (left <= 0 || missing <= 0) break;
      left--;
      const z2 = neighbour[e2] as number;
      if (z2 === x || z2 === z1) continue;
      if (s3 === undefined) {
        emit(z2);
        continue;
      }
      const end3 = offsets[z2 + 1] as number;
      for (let e3 = index.first(z2, s3); e3 < end3 && stepOf[e3] === s3; e3++) {
        if (left <= 0 || missing <= 0) break;
        left--;
        const y = neighbour[e3] as number;
        if (y !== z1 && y !== z2) emit(y);
      }
    }
  }
  return left;
}

/**
 * The evidence of `rules` (one relation's, one direction's, best first) for the answers of the
 * query from `x` (what the engine's `RuleWalks` computes for serving; kept as the reference
 * rule-walker.test.ts holds the engine to): every entity some rule's body reaches from `x`, with the rules' confidences
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
