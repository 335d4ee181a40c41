import type { Direction } from '../../direction';
import { ErrorCode, KgcError } from '../../errors';
import { EventLoopTurns, TURN_CHECK_EVERY } from '../../event-loop-turns';
import type { Native } from '../native-engine';
import { walkRule } from '../rules/rule-evidence';
import type { WalkRule } from '../rules/rule-evidence';
import { combinedLogit } from '../rules/served-combiner';
import type { ServedCombiner } from '../rules/served-combiner';
import type { CombinerSetting } from '../rules/rule-combiner';
import type { Scorer } from '../scorer';
import type { ExcludedPairs } from './excluded-pairs';

/** Query entities scored together (each one engine call, run side by side). */
const SCORED_TOGETHER = 64;

/** The pairs one (relation, direction)'s suggestions range over; undefined: every entity. */
export interface PairScope {
  /** Known ends (heads of tail suggestions), ascending. */
  queries?: Uint32Array;
  /** Suggested ends, ascending. */
  candidates?: Uint32Array;
}

/** One scored pair: the query entity, the candidate and its served logit. */
interface ServedPair {
  x: number;
  y: number;
  served: number;
}

/** The `n` pairs with the highest served logits offered so far (a min-heap on the logit). */
class BestServed {
  private readonly heap: ServedPair[] = [];

  constructor(private readonly n: number) {}

  get full(): boolean {
    return this.heap.length >= this.n;
  }

  /** The n-th best served logit (-Infinity until n are kept). */
  get floor(): number {
    return this.full ? (this.heap[0] as ServedPair).served : -Infinity;
  }

  offer(pair: ServedPair): void {
    if (!this.full) {
      this.heap.push(pair);
      this.up(this.heap.length - 1);
    } else if (pair.served > this.floor) {
      this.heap[0] = pair;
      this.down(0);
    }
  }

  /** Best first; ties by query, then candidate. */
  sorted(): ServedPair[] {
    return [...this.heap].sort((a, b) => b.served - a.served || a.x - b.x || a.y - b.y);
  }

  private less(a: number, b: number): boolean {
    return (this.heap[a] as ServedPair).served < (this.heap[b] as ServedPair).served;
  }

  private swap(a: number, b: number): void {
    const h = this.heap;
    [h[a], h[b]] = [h[b] as ServedPair, h[a] as ServedPair];
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const [l, r] = [2 * i + 1, 2 * i + 2];
      let least = i;
      if (l < this.heap.length && this.less(l, least)) least = l;
      if (r < this.heap.length && this.less(r, least)) least = r;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }
}

/**
 * The most the rules from `k` on can add to a pair no earlier rule reaches: their best
 * confidence (max), or all of them firing together (noisy-or).
 */
function remainingEvidence(
  rules: readonly WalkRule[],
  k: number,
  aggregate: CombinerSetting['aggregate'],
): number {
  let best = 0;
  let none = 1;
  for (let j = k; j < rules.length; j++) {
    const c = (rules[j] as WalkRule).confidence;
    best = Math.max(best, c);
    none *= 1 - c;
  }
  return aggregate === 'max' ? best : 1 - none;
}

/**
 * The best `n` pairs of `relation` in `direction` by the served logit (the model's plus the
 * rules' term `combiner` adds), given `found`: the best `n` by the model's logit alone over the
 * same scope and exclusions, best first. Exact up to ties: the rules only raise logits, so a
 * pair no rule reaches is among the served best only if it is among the model's. The rules are
 * walked one at a time, best first, from every query entity; an entity one of them reaches a
 * candidate from has all its candidates scored as the API serves them (its walked evidence,
 * one engine call for their logits). The walks stop once the model's best logit plus the most
 * the remaining rules could add stays at or under the n-th served logit found.
 */
export async function servedTopPairs(
  scorer: Scorer,
  combiner: ServedCombiner,
  relation: number,
  direction: Direction,
  found: Native.Suggestions,
  scope: PairScope,
  excluded: ExcludedPairs,
  n: number,
  signal?: AbortSignal,
): Promise<Native.Suggestions> {
  const setting = combiner.setting(relation, direction);
  const rules = combiner.walker.rulesFor(relation, direction);
  if (setting.w === 0 || rules.length === 0 || found.logits.length === 0) return found;
  const entities = scorer.entities.length;
  const inScope = new Uint8Array(entities).fill(scope.candidates ? 0 : 1);
  for (const c of scope.candidates ?? []) inScope[c] = 1;
  const tail = direction === 'tail';
  const wanted = (x: number, y: number) =>
    inScope[y] === 1 && !excluded.has(tail ? x : y, relation, tail ? y : x);
  const best = new BestServed(n);
  const scored = new Uint8Array(entities);
  const turns = new EventLoopTurns();
  const stopped = () => {
    if (signal?.aborted) {
      throw new KgcError(
        ErrorCode.TRAINING_ABORTED,
        'Suggestions were stopped before they finished.',
      );
    }
  };

  // Query entity x's candidates as served: what its walks reach, and the model's own picks.
  const score = async (batch: { x: number; picks: Map<number, number> }[]) => {
    const asked = batch.map(({ x, picks }) => {
      const evidence = combiner.evidence(x, relation, direction);
      const ys = new Set(picks.keys());
      for (const y of evidence?.found.keys() ?? []) if (wanted(x, y)) ys.add(y);
      return { x, picks, evidence, ys: [...ys] };
    });
    const logits = await Promise.all(
      asked.map(({ x, picks, ys }) =>
        ys.every((y) => picks.has(y))
          ? Float32Array.from(ys, (y) => picks.get(y) as number)
          : scorer.logitsOfAsync({ entity: x, relation, direction }, ys),
      ),
    );
    asked.forEach(({ x, evidence, ys }, a) => {
      ys.forEach((y, i) => {
        const own = (logits[a] as Float32Array)[i] as number;
        const logit = evidence ? combinedLogit(own, setting, evidence.found.get(y)) : own;
        best.offer({ x, y, served: logit });
      });
    });
  };

  // The model's best pairs first, with everything their query entities' walks reach.
  const picksOf = new Map<number, Map<number, number>>();
  found.queries.forEach((x, i) => {
    const picks = picksOf.get(x) ?? new Map<number, number>();
    picks.set(found.candidates[i] as number, found.logits[i] as number);
    picksOf.set(x, picks);
  });
  const entries = [...picksOf.entries()];
  for (let i = 0; i < entries.length; i += SCORED_TOGETHER) {
    stopped();
    const batch = entries.slice(i, i + SCORED_TOGETHER).map(([x, picks]) => ({ x, picks }));
    batch.forEach(({ x }) => (scored[x] = 1));
    await score(batch);
    await turns.maybeTurn();
  }

  const modelBest = found.logits[0] as number;
  const all = scope.queries ?? Uint32Array.from({ length: entities }, (_, i) => i);
  for (let k = 0; k < rules.length; k++) {
    // No pair the rules from k on reach first can score above this (combinedLogit's sum).
    const ceiling = modelBest + setting.w * remainingEvidence(rules, k, setting.aggregate);
    if (best.full && ceiling <= best.floor) break;
    const steps = (rules[k] as WalkRule).steps;
    let batch: { x: number; picks: Map<number, number> }[] = [];
    for (let q = 0; q < all.length; q++) {
      const x = all[q] as number;
      if (q % TURN_CHECK_EVERY === 0) {
        stopped();
        await turns.maybeTurn();
      }
      if (scored[x] === 1 || x >= combiner.walker.graph.nodes) continue;
      let reaches = false;
      walkRule(combiner.walker.graph, x, steps, combiner.walker.budget, (y) => {
        reaches ||= wanted(x, y);
      });
      if (!reaches) continue;
      scored[x] = 1;
      batch.push({ x, picks: new Map() });
      if (batch.length === SCORED_TOGETHER) {
        await score(batch);
        batch = [];
      }
    }
    await score(batch);
  }
  stopped();

  const pairs = best.sorted();
  return {
    queries: Uint32Array.from(pairs, (p) => p.x),
    candidates: Uint32Array.from(pairs, (p) => p.y),
    logits: Float32Array.from(pairs, (p) => p.served),
  };
}
