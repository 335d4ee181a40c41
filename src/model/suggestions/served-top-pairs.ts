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

/** A query entity whose best pair rule k reaches may pass the n-th served logit kept. */
interface Contender {
  x: number;
  /** Its model's best logit among the wanted candidates rule k reaches, plus w · remaining. */
  bound: number;
}

/**
 * The best `n` pairs of `relation` in `direction` by the served logit (the model's plus the
 * rules' term `combiner` adds), given `found`: the best `n` by the model's logit alone over the
 * same scope and exclusions, best first. Exact up to ties.
 *
 * The rules only raise logits, so a pair outside `found` scores at most found's last logit by
 * the model, plus what the rules that reach it add. Settling a query entity x means scoring
 * every wanted candidate it has as the API serves them (its walked evidence, one engine call)
 * and offering them all. First found's query entities are settled. Then each rule k, best
 * first, is walked from every unsettled x: a pair it reaches first (no earlier rule does) can
 * score at most its model logit plus w times the most rules k on can add (`remainingEvidence`);
 * the entities whose best such bound passes the n-th served logit kept are settled, highest
 * bound first, until the next bound cannot pass it. A pair some earlier rule reached was
 * bounded, higher, at that rule. The walks stop once found's last logit plus what the rules
 * from k on can add cannot pass the n-th served logit.
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
  const { graph, budget } = combiner.walker;
  const entities = scorer.entities.length;
  const inScope = new Uint8Array(entities).fill(scope.candidates ? 0 : 1);
  for (const c of scope.candidates ?? []) inScope[c] = 1;
  const tail = direction === 'tail';
  const wanted = (x: number, y: number) =>
    inScope[y] === 1 && !excluded.has(tail ? x : y, relation, tail ? y : x);
  const best = new BestServed(n);
  const settled = new Uint8Array(entities);
  const turns = new EventLoopTurns();
  const stopped = () => {
    if (signal?.aborted) {
      throw new KgcError(
        ErrorCode.TRAINING_ABORTED,
        'Suggestions were stopped before they finished.',
      );
    }
  };
  const logitsOf = (x: number, ys: readonly number[]) =>
    scorer.logitsOfAsync({ entity: x, relation, direction }, ys);

  // Query entity x's candidates as served: what its walks reach, and the model's own picks.
  const settle = async (batch: { x: number; picks: Map<number, number> }[]) => {
    const asked = batch.map(({ x, picks }) => {
      settled[x] = 1;
      const evidence = combiner.evidence(x, relation, direction);
      const ys = new Set(picks.keys());
      for (const y of evidence?.found.keys() ?? []) if (wanted(x, y)) ys.add(y);
      return { x, picks, evidence, ys: [...ys] };
    });
    const logits = await Promise.all(
      asked.map(({ x, picks, ys }) =>
        ys.every((y) => picks.has(y))
          ? Float32Array.from(ys, (y) => picks.get(y) as number)
          : logitsOf(x, ys),
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
    await settle(entries.slice(i, i + SCORED_TOGETHER).map(([x, picks]) => ({ x, picks })));
    await turns.maybeTurn();
  }

  // Fewer than n wanted pairs: found holds them all, settled above.
  if (found.logits.length >= n) {
    const modelFloor = found.logits[found.logits.length - 1] as number;
    const all = scope.queries ?? Uint32Array.from({ length: entities }, (_, i) => i);
    for (let k = 0; k < rules.length; k++) {
      const remaining = setting.w * remainingEvidence(rules, k, setting.aggregate);
      if (best.full && modelFloor + remaining <= best.floor) break;
      const steps = (rules[k] as WalkRule).steps;
      const contenders: Contender[] = [];
      let reached: { x: number; ys: number[] }[] = [];
      const bound = async () => {
        const logits = await Promise.all(reached.map(({ x, ys }) => logitsOf(x, ys)));
        reached.forEach(({ x }, a) => {
          let top = -Infinity;
          for (const logit of logits[a] as Float32Array) top = Math.max(top, logit);
          if (top + remaining > best.floor) contenders.push({ x, bound: top + remaining });
        });
        reached = [];
      };
      for (let q = 0; q < all.length; q++) {
        const x = all[q] as number;
        if (q % TURN_CHECK_EVERY === 0) {
          stopped();
          await turns.maybeTurn();
        }
        if (settled[x] === 1 || x >= graph.nodes) continue;
        const ys: number[] = [];
        walkRule(graph, x, steps, budget, (y) => {
          if (wanted(x, y)) ys.push(y);
        });
        if (ys.length === 0) continue;
        reached.push({ x, ys });
        if (reached.length === SCORED_TOGETHER) await bound();
      }
      await bound();
      contenders.sort((a, b) => b.bound - a.bound || a.x - b.x);
      for (let i = 0; i < contenders.length; i += SCORED_TOGETHER) {
        stopped();
        const batch = contenders.slice(i, i + SCORED_TOGETHER).filter((c) => c.bound > best.floor);
        if (batch.length === 0) break;
        await settle(batch.map(({ x }) => ({ x, picks: new Map() })));
        await turns.maybeTurn();
      }
    }
  }
  stopped();

  const pairs = best.sorted();
  return {
    queries: Uint32Array.from(pairs, (p) => p.x),
    candidates: Uint32Array.from(pairs, (p) => p.y),
    logits: Float32Array.from(pairs, (p) => p.served),
  };
}
