import { EventLoopTurns } from '../../event-loop-turns';
import { seededRandom } from '../../seeded-random';
import { BodyFinder, bodySteps } from './body-search';
import { BodyPairs } from './body-pairs';
import { GraphIndex } from './graph-index';
import { DEFAULT_MINING } from './rule-types';
import type { MiningSettings, Rule, RuleAtom, RuleSet } from './rule-types';

/** The graph to mine: dense ids, as the retrain job exports it. */
export interface MiningGraph {
  /** Only its length is read: entity ids are 0..length-1. */
  entities: ArrayLike<unknown>;
  relationNames: readonly string[];
  heads: Int32Array;
  relations: Int32Array;
  tails: Int32Array;
}

/** Up to `n` of `items`, a seeded random choice (all of them, in order, when n covers them). */
function sample(items: Int32Array, n: number, random: () => number): Int32Array {
  if (items.length <= n) return items;
  const copy = items.slice();
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (copy.length - i));
    const t = copy[i] as number;
    copy[i] = copy[j] as number;
    copy[j] = t;
  }
  return copy.subarray(0, n);
}

/** Bodies of paths between sampled edges of relation r, with how many sampled edges each explains. */
async function candidateBodies(
  index: GraphIndex,
  finder: BodyFinder,
  facts: Int32Array,
  r: number,
  random: () => number,
  turns: EventLoopTurns,
): Promise<{ counts: Map<number, number>; truncated: boolean }> {
  const counts = new Map<number, number>();
  const lastFact = new Map<number, number>();
  let truncated = false;
  for (const [f, edge] of facts.entries()) {
    const x = index.heads[edge] as number;
    const y = index.tails[edge] as number;
    if (x === y) continue;
    const offset = Math.floor(random() * Math.max(1, index.degree(x)));
    finder.find(x, y, 2 * r, offset, (key) => {
      if (lastFact.get(key) === f) return;
      lastFact.set(key, f);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    });
    truncated ||= finder.truncated;
    await turns.maybeTurn();
  }
  return { counts, truncated };
}

/** Distinct nodes where a body can start (heads of its first step's relation, or tails). */
function bodyStarts(
  index: GraphIndex,
  firstStep: number,
  mark: Int32Array,
  stamp: number,
): Int32Array {
  const edges = index.byRelation[firstStep >> 1] as Int32Array;
  const ends = firstStep & 1 ? index.tails : index.heads;
  const starts: number[] = [];
  for (const edge of edges) {
    const node = ends[edge] as number;
    if (mark[node] === stamp) continue;
    mark[node] = stamp;
    starts.push(node);
  }
  return Int32Array.from(starts);
}

function atoms(index: GraphIndex, names: readonly string[], key: number): RuleAtom[] {
  return bodySteps(index.steps, key).map((step) => ({
    relation: names[step >> 1] as string,
    inverse: (step & 1) === 1,
  }));
}

/**
 * Mines path rules `b1 ∘ b2 (∘ b3) ⇒ r` for every relation, AMIE-style, with sampling so big
 * graphs stay fast (all seeded):
 * 1. candidates: for up to `factsPerRelation` sampled edges (x, r, y), the bodies of the simple
 *    paths from x to y; a body's count is how many sampled edges it explains.
 * 2. for the `candidatesPerRelation` most frequent bodies, confidence from up to `bodySamples`
 *    sampled start nodes x: the distinct ends y of the body's paths from x, and the share of them
 *    with an edge (x, r, y) (standard confidence, estimated on the sampled starts).
 * Support is the count of step 1, exact when every edge of r was sampled and no search was cut
 * short, else scaled to the relation's size. The event loop gets a turn every few milliseconds.
 */
export async function mineRules(
  graph: MiningGraph,
  options: Partial<MiningSettings> = {},
  turns = new EventLoopTurns(),
): Promise<RuleSet> {
  const started = performance.now();
  const settings: MiningSettings = { ...DEFAULT_MINING, ...options };
  const index = await GraphIndex.build(
    graph.entities.length,
    graph.relationNames.length,
    graph.heads,
    graph.relations,
    graph.tails,
    turns,
  );
  const random = seededRandom(settings.seed);
  const finder = new BodyFinder(index, settings.maxLength, settings.stepBudget);
  const counter = new BodyPairs(index);
  const mark = new Int32Array(index.nodes).fill(-1);
  let markStamp = 0;
  const rules: Record<string, Rule[]> = {};
  for (const [r, name] of graph.relationNames.entries()) {
    const all = index.byRelation[r] as Int32Array;
    if (all.length === 0) continue;
    const facts = sample(all, settings.factsPerRelation, random);
    const { counts, truncated } = await candidateBodies(index, finder, facts, r, random, turns);
    const exact = facts.length === all.length && !truncated;
    const candidates = [...counts]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, settings.candidatesPerRelation);
    const found: Rule[] = [];
    for (const [key, count] of candidates) {
      const support = exact ? count : Math.round((count / facts.length) * all.length);
      if (support < settings.minSupport) continue;
      const body = bodySteps(index.steps, key);
      const starts = sample(
        bodyStarts(index, body[0] as number, mark, markStamp++),
        settings.bodySamples,
        random,
      );
      let pairs = 0;
      let hits = 0;
      let left = settings.ruleBudget;
      for (const x of starts) {
        if (left <= 0) break;
        left -= counter.count(x, body, 2 * r, Math.min(left, settings.stepBudget));
        pairs += counter.pairs;
        hits += counter.hits;
        await turns.maybeTurn();
      }
      const confidence = pairs > 0 ? hits / pairs : 0;
      if (confidence < settings.minConfidence) continue;
      found.push({
        relation: name,
        body: atoms(index, graph.relationNames, key),
        support,
        confidence,
        headCoverage: support / all.length,
      });
    }
    found.sort((a, b) => b.confidence - a.confidence || b.support - a.support);
    if (found.length > 0) rules[name] = found.slice(0, settings.rulesPerRelation);
  }
  return { format: 1, settings, seconds: (performance.now() - started) / 1000, rules };
}
