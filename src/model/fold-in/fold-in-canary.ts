import type { Direction } from '../../direction';
import type { GraphIndex } from '../rules/graph-index';
import type { Scorer } from '../scorer';
import { CanaryHarm, HARM_MARGIN_Z } from './canary-harm';
import type { FoldInEdge } from './fold-in-edges';

/** One canary question: `entity`'s `relation` in `direction`, whose answer is `answer`. */
interface CanaryQuery {
  entity: number;
  relation: number;
  direction: Direction;
  answer: number;
}

/** An entity to admit: its fitted row and its edges (it is a true answer where they say so). */
export interface Candidate {
  row: Float32Array;
  edges: readonly FoldInEdge[];
}

/**
 * What one admitted row does to the canary: the questions whose answer it outranks, and by how
 * much (1, or half a place on a tie). Kept with the row while it is served, so the next batch
 * counts the served rows without scoring them again.
 */
export interface CanaryImpact {
  questions: Uint32Array;
  adds: Float32Array;
}

/** What admitting some candidates does to the canary's MRR. */
export interface CanaryVerdict {
  /** The canary's MRR on the version alone. */
  before: number;
  /** Its MRR with the admitted rows (and the rows already served). */
  after: number;
  /** The standard error of `before - after` (the harm), over the check half's edges. */
  standardError: number;
  /** Indices of the candidates admitted (their rows may be served). */
  admitted: number[];
  /** Each candidate's impact (by index), to be kept with the admitted ones. */
  impacts: CanaryImpact[];
}

/**
 * Known edges of a version that folded-in entities must not crowd out (issue 57): each edge
 * asked in both directions, ranked (filtered by the version's graph) once on the version. A
 * folded row changes a question's rank only by outranking its answer, so the rank with rows
 * appended is the version's plus the rows whose logit beats the answer's (ties half): one
 * engine product of the questions against the rows, never the whole model again.
 *
 * The edges are cut in two halves. Which entities go first, and whether one more fits, is read
 * on the "rank" half; the harm counted against the tolerance is read on the "check" half only.
 * Choosing entities on the same questions that measure them would admit those that happened to
 * miss the sample and call the rest harmful: the admitted set's measured harm would come out
 * lower than its harm on the edges the canary stands for.
 */
export class FoldInCanary {
  /** Question indices by `entity relation direction`. */
  private readonly byQuestion = new Map<string, number[]>();
  /** Per question: whether it is in the check half (else the rank half). */
  private readonly inCheck: boolean[];
  private readonly halves: { rank: number; check: number };
  /** Per edge (questions 2e and 2e + 1): its index among the check half's edges, else -1. */
  private readonly checkEdge: Int32Array;
  private readonly checkEdges: number;

  private constructor(
    private readonly scorer: Scorer,
    private readonly queries: CanaryQuery[],
    private readonly ranks: Float64Array,
    private readonly answerLogits: Float32Array,
  ) {
    this.queries.forEach((query, i) => {
      const key = `${query.entity} ${query.relation} ${query.direction}`;
      this.byQuestion.set(key, [...(this.byQuestion.get(key) ?? []), i]);
    });
    // An edge's two questions stay together (they are not independent); odd edges check.
    // Under two edges there are no halves: both roles read every question.
    const edges = queries.length / 2;
    this.inCheck = queries.map((_, i) => edges < 2 || Math.floor(i / 2) % 2 === 1);
    const check = this.inCheck.filter(Boolean).length;
    this.halves = { check, rank: edges < 2 ? queries.length : queries.length - check };
    this.checkEdge = new Int32Array(edges).fill(-1);
    let next = 0;
    for (let e = 0; e < this.checkEdge.length; e++) {
      if (this.readsIn('check', 2 * e)) this.checkEdge[e] = next++;
    }
    this.checkEdges = next;
  }

  /**
   * The canary of `edges` (flat [h, r, t, ...] in the version's ids), filtered by `graph`
   * (undefined: unfiltered). Undefined without edges.
   */
  static async build(
    scorer: Scorer,
    edges: Uint32Array,
    graph: GraphIndex | undefined,
  ): Promise<FoldInCanary | undefined> {
    const queries: CanaryQuery[] = [];
    for (let i = 0; i + 2 < edges.length; i += 3) {
      const [h, r, t] = [edges[i] as number, edges[i + 1] as number, edges[i + 2] as number];
      queries.push({ entity: h, relation: r, direction: 'tail', answer: t });
      queries.push({ entity: t, relation: r, direction: 'head', answer: h });
    }
    if (queries.length === 0) return undefined;
    // The graph's other answers are no competitors (graph-index.ts: step 2r forward): each a
    // view of the graph's neighbour list, no copy (a hub's runs to hundreds of thousands; the
    // answer in it is never filtered out, filteredRanksAsync says).
    const excludes = queries.map((q) => {
      if (!graph) return undefined;
      const { neighbour } = graph;
      const [from, to] = graph.range(q.entity, 2 * q.relation + (q.direction === 'tail' ? 0 : 1));
      return new Uint32Array(neighbour.buffer, neighbour.byteOffset + 4 * from, to - from);
    });
    const { ranks, logits } = await scorer.filteredRanksAsync(
      queries.map((q) => ({ ...q, tail: q.answer })),
      excludes,
    );
    return new FoldInCanary(scorer, queries, ranks, logits);
  }

  get size(): number {
    return this.queries.length;
  }

  /** The questions an entity with `edges` answers: (entity, r, u) or (u, r, entity) edges. */
  private answeredBy(edges: readonly FoldInEdge[]): Set<number> {
    const found = new Set<number>();
    for (const e of edges) {
      // An edge in from `other` answers other's tail question; one out to it, the head one.
      const key = `${e.other} ${e.relation} ${e.outgoing ? 'head' : 'tail'}`;
      for (const i of this.byQuestion.get(key) ?? []) found.add(i);
    }
    return found;
  }

  /** Whether question `i` is read in `half` (both when there are no halves). */
  private readsIn(half: 'rank' | 'check', i: number): boolean {
    if (this.halves.rank === this.queries.length) return true;
    return half === 'check' ? (this.inCheck[i] as boolean) : !this.inCheck[i];
  }

  /** The MRR of `half`'s questions with `counts` rows above their answers. */
  private mrrOn(half: 'rank' | 'check', counts: Float64Array): number {
    let sum = 0;
    for (let i = 0; i < this.queries.length; i++) {
      if (this.readsIn(half, i)) sum += 1 / ((this.ranks[i] as number) + (counts[i] as number));
    }
    return sum / this.halves[half];
  }

  /**
   * How much one more row (its impact) would lower the rank half's MRR on top of `counts` (the
   * check half's is kept by CanaryHarm as rows are counted in).
   */
  private rankDrop(impact: CanaryImpact, counts: Float64Array): number {
    let drop = 0;
    impact.questions.forEach((i, k) => {
      if (!this.readsIn('rank', i)) return;
      const base = (this.ranks[i] as number) + (counts[i] as number);
      drop += 1 / base - 1 / (base + (impact.adds[k] as number));
    });
    return drop / this.halves.rank;
  }

  /**
   * Admits, of `candidates`, those that keep the canary's MRR within `maxHarm` of the
   * version's with the rows already served counted first (`served`: their impacts): in order of
   * their harm on the rank half, each whose rank-half harm fits on top of the check half's
   * bound (its harm so far plus `z` standard errors: canary-harm.ts), until admitting one would
   * take the check half's bound itself past `maxHarm`. `before`/`after` are the check half's.
   * Scores the candidates only, on the engine's threads; the rest is linear in the candidates
   * and the served rows' impacts. No candidates: nothing is admitted and `before`/`after` are
   * not measured (NaN).
   */
  async admit(
    served: readonly CanaryImpact[],
    candidates: readonly Candidate[],
    maxHarm: number,
    z = HARM_MARGIN_Z,
  ): Promise<CanaryVerdict> {
    if (candidates.length === 0)
      return { before: NaN, after: NaN, standardError: NaN, admitted: [], impacts: [] };
    const d = candidates[0]?.row.length ?? 0;
    const rows = new Float32Array(candidates.length * d);
    candidates.forEach((c, i) => rows.set(c.row, i * d));
    const logits = await this.scorer.logitsAgainstAsync(this.queries, rows);
    const impacts = candidates.map((c, j) => this.impactOf(logits, candidates.length, j, c.edges));
    const counts = new Float64Array(this.queries.length);
    const checked = new CanaryHarm(this.checkEdges, this.halves.check);
    const add = (impact: CanaryImpact, sign = 1) => {
      impact.questions.forEach(
        (i, k) => (counts[i] = (counts[i] as number) + sign * (impact.adds[k] as number)),
      );
      for (const i of impact.questions) {
        const e = Math.floor(i / 2);
        const g = this.checkEdge[e] as number;
        if (g >= 0) checked.set(g, this.lossOf(2 * e, counts) + this.lossOf(2 * e + 1, counts));
      }
    };
    const before = this.mrrOn('check', counts);
    for (const impact of served) add(impact);
    const order = impacts
      .map((impact, c) => ({ c, drop: this.rankDrop(impact, counts) }))
      .sort((a, b) => a.drop - b.drop || a.c - b.c);
    const admitted: number[] = [];
    const bound = () => checked.harm + z * checked.standardError;
    for (const { c } of order) {
      const impact = impacts[c] as CanaryImpact;
      // A candidate is judged on the rank half only, so that the check half stays an unbiased
      // measure of what was admitted.
      if (bound() + this.rankDrop(impact, counts) > maxHarm) continue;
      add(impact);
      // The check half's bound passed: this candidate and every one after it (as harmful or
      // more, by the rank half) wait. Stopping, rather than skipping to the next, keeps the
      // check half from choosing the candidates that happened to miss it.
      if (bound() > maxHarm) {
        add(impact, -1);
        break;
      }
      admitted.push(c);
    }
    return {
      before,
      after: before - checked.harm,
      standardError: checked.standardError,
      admitted: admitted.sort((a, b) => a - b),
      impacts,
    };
  }

  /** Question `i`'s reciprocal rank lost to `counts` rows above its answer. */
  private lossOf(i: number, counts: Float64Array): number {
    const rank = this.ranks[i] as number;
    return 1 / rank - 1 / (rank + (counts[i] as number));
  }

  /**
   * Row `j`'s impact (of `k` rows scored, `logits` questions x k): the questions whose answer
   * it outranks, not counting those it answers itself (filtered there, as a known edge is).
   */
  private impactOf(
    logits: Float32Array,
    k: number,
    j: number,
    edges: readonly FoldInEdge[],
  ): CanaryImpact {
    const own = this.answeredBy(edges);
    const questions: number[] = [];
    const adds: number[] = [];
    for (let i = 0; i < this.queries.length; i++) {
      const [l, a] = [logits[i * k + j] as number, this.answerLogits[i] as number];
      if (l < a || own.has(i)) continue;
      questions.push(i);
      adds.push(l > a ? 1 : 0.5);
    }
    return { questions: Uint32Array.from(questions), adds: Float32Array.from(adds) };
  }
}
