import { FoldInCanary } from '../../../../src/model/fold-in/fold-in-canary';
import type { Scorer } from '../../../../src/model/scorer';

/**
 * A scorer whose canary questions rank their answers at `ranks` with logit 0, and whose logit
 * for question q against a row is row[0] + q * row[1] (rows of two floats).
 */
function scorer(ranks: number[]): Scorer {
  return {
    filteredRanksAsync: async (queries: unknown[]) => ({
      ranks: Float64Array.from(queries, (_, i) => ranks[i] as number),
      logits: new Float32Array(queries.length),
    }),
    logitsAgainstAsync: async (queries: unknown[], rows: Float32Array) => {
      const k = rows.length / 2;
      return Float32Array.from({ length: queries.length * k }, (_, i) => {
        const [q, j] = [Math.floor(i / k), i % k];
        return (rows[2 * j] as number) + q * (rows[2 * j + 1] as number);
      });
    },
  } as unknown as Scorer;
}

const none: never[] = [];
const row = (a: number, b = 0) => Float32Array.of(a, b);

describe('the fold-in canary', () => {
  // One edge (0, r0, 1): question 0 is (0, r0, tail) answered by 1, question 1 (1, r0, head) by 0.
  const edges = Uint32Array.of(0, 0, 1);

  it('admits rows that outrank no answer and holds back those that lower the MRR too much', async () => {
    const canary = (await FoldInCanary.build(scorer([1, 2]), edges, undefined))!;
    expect(canary.size).toBe(2);
    const verdict = await canary.admit(
      none,
      [
        { row: row(-1), edges: [] }, // below every answer
        { row: row(1), edges: [] }, // above both: ranks 1 -> 2, 2 -> 3
        { row: row(0), edges: [] }, // ties both: half a place each
      ],
      0.2,
    );
    expect(verdict.before).toBeCloseTo((1 + 1 / 2) / 2, 10);
    // The harmless one first, then the tie (MRR (1/1.5 + 1/2.5) / 2 = .533, harm .217 > .2):
    // only the first is admitted.
    expect(verdict.admitted).toEqual([0]);
    expect(verdict.after).toBeCloseTo(verdict.before, 10);
    const lenient = await canary.admit(none, [{ row: row(0), edges: [] }], 0.25);
    expect(lenient.admitted).toEqual([0]);
  });

  it('counts the rows already served first, without scoring them again', async () => {
    const base = scorer([1, 1]);
    const scored: number[] = [];
    const counting = {
      ...base,
      filteredRanksAsync: base.filteredRanksAsync,
      logitsAgainstAsync: (queries: never[], rows: Float32Array) => {
        scored.push(rows.length / 2);
        return base.logitsAgainstAsync(queries, rows);
      },
    } as unknown as Scorer;
    const canary = (await FoldInCanary.build(counting, edges, undefined))!;
    // A served row above both answers has used the tolerance up: MRR 1 -> .5. Its impact is
    // what admitting it gave (kept with it while served).
    const first = await canary.admit(none, [{ row: row(1), edges: [] }], 1);
    expect(first.admitted).toEqual([0]);
    expect([...first.impacts[0]!.questions]).toEqual([0, 1]);
    const served = [first.impacts[0]!];
    const verdict = await canary.admit(served, [{ row: row(0, 1), edges: [] }], 0.5);
    // Only the candidate was scored: the served row counted by its impact.
    expect(scored.at(-1)).toBe(1);
    // The candidate outranks question 1 only (0 + 1 > 0): more harm past .5, held back.
    expect(verdict.before).toBe(1);
    expect(verdict.admitted).toEqual([]);
    expect(verdict.after).toBeCloseTo(0.5, 10);
  });

  it("does not count a row that is itself an answer of the question (a known edge's end)", async () => {
    const canary = (await FoldInCanary.build(scorer([1, 1]), edges, undefined))!;
    // Its edge (0, r0, u) makes it an answer of question 0; it outranks question 1 too.
    const answering = { row: row(1), edges: [{ relation: 0, other: 0, outgoing: false }] };
    const verdict = await canary.admit(none, [answering], 0.26);
    // Only question 1 loses a place: MRR (1 + 1/2) / 2 = .75, harm .25.
    expect(verdict.admitted).toEqual([0]);
    expect(verdict.after).toBeCloseTo(0.75, 10);
  });

  it("filters the graph's other answers out of the ranks it starts from", async () => {
    let excludes: unknown;
    const base = scorer([1, 1]);
    const spying = {
      ...base,
      filteredRanksAsync: async (queries: unknown[], lists: unknown) => {
        excludes = lists;
        return base.filteredRanksAsync(queries as never, lists as never);
      },
    } as unknown as Scorer;
    const graph = {
      range: (node: number, step: number) => (node === 0 && step === 0 ? [0, 2] : [0, 0]),
      neighbour: Int32Array.of(1, 5),
    };
    await FoldInCanary.build(spying, edges, graph as never);
    // Question 0's known answers (the engine never filters out the answer itself, 1).
    expect((excludes as Uint32Array[]).map((list) => [...list])).toEqual([[1, 5], []]);
  });

  describe('with two halves (two edges or more)', () => {
    // Edge 0 (questions 0 and 1) is the rank half, edge 1 (questions 2 and 3) the check half;
    // every answer at rank 1, so a row above a question's answer costs its half .25 of MRR.
    const two = Uint32Array.of(0, 0, 1, 2, 0, 3);
    // Above question q's answer where the row's slope puts it: row(a, b) scores a + q * b.
    const onlyCheck = row(-2.5, 1); // above questions 3 only (-2.5 + 3 > 0)
    const onlyRank = row(0.5, -1); // above question 0 only

    it('judges a candidate on the rank half and counts the check half against the tolerance', async () => {
      const canary = (await FoldInCanary.build(scorer([1, 1, 1, 1]), two, undefined))!;
      expect(canary.size).toBe(4);
      // Harm on the rank half only: held back, though the check half sees none.
      const ranked = await canary.admit(none, [{ row: onlyRank, edges: [] }], 0.2);
      expect(ranked.admitted).toEqual([]);
      expect(ranked.after).toBe(ranked.before);
      // Harm on the check half only: nothing in the rank half speaks against it, but admitted
      // it would take the check half past the tolerance (its MRR (1 + 1/2) / 2): held back.
      const checked = await canary.admit(none, [{ row: onlyCheck, edges: [] }], 0.2);
      expect(checked.admitted).toEqual([]);
      expect(checked.before).toBe(1);
      expect(checked.after).toBe(1);
      // Under a tolerance it fits in: admitted, and measured on the check half.
      const fits = await canary.admit(none, [{ row: onlyCheck, edges: [] }], 0.3);
      expect(fits.admitted).toEqual([0]);
      expect(fits.after).toBeCloseTo(0.75, 10);
    });

    it('holds back the rest once the check half has used the tolerance up', async () => {
      const canary = (await FoldInCanary.build(scorer([1, 1, 1, 1]), two, undefined))!;
      const harmless = row(-10);
      const both = [
        { row: onlyCheck, edges: [] },
        { row: harmless, edges: [] },
      ];
      // Both look harmless on the rank half; the first would cost the check half .25, past .2:
      // it and every one after it wait (the check half does not pick the lucky ones).
      const verdict = await canary.admit(none, both, 0.2);
      expect(verdict.admitted).toEqual([]);
      expect(verdict.after).toBe(verdict.before);
      // Under .3 both fit.
      const wide = await canary.admit(none, both, 0.3);
      expect(wide.admitted).toEqual([0, 1]);
      expect(wide.after).toBeCloseTo(0.75, 10);
      // Served rows count first: with the first served, even a harmless row waits under .2.
      const next = await canary.admit(
        wide.impacts.slice(0, 1),
        [{ row: harmless, edges: [] }],
        0.2,
      );
      expect(next.admitted).toEqual([]);
      expect(next.after).toBeCloseTo(0.75, 10);
    });

    it("keeps a margin of the check half's standard error below the tolerance", async () => {
      // Four edges: 0 and 2 rank (questions 0, 1, 4, 5), 1 and 3 check (2, 3, 6, 7).
      const four = Uint32Array.of(0, 0, 1, 2, 0, 3, 4, 0, 5, 6, 0, 7);
      const canary = (await FoldInCanary.build(scorer(new Array(8).fill(1)), four, undefined))!;
      const lastCheck = row(-6.5, 1); // above question 7 only: edge 3 loses .5, harm .5 / 4
      const harmless = row(-10);
      const candidates = [
        { row: lastCheck, edges: [] },
        { row: harmless, edges: [] },
      ];
      // Without the margin both fit (.125 of harm, the second adds none).
      const bare = await canary.admit(none, candidates, 0.2, 0);
      expect(bare.admitted).toEqual([0, 1]);
      expect(bare.before - bare.after).toBeCloseTo(0.125, 10);
      // Edge losses (.5, 0): s^2 = .125, error sqrt(2 x .125) / 4 = .125.
      expect(bare.standardError).toBeCloseTo(0.125, 10);
      // With it, the first would take the bound to .125 + 1.645 x .125 > .2: both wait.
      const guarded = await canary.admit(none, candidates, 0.2);
      expect(guarded.admitted).toEqual([]);
      // A wider tolerance takes the margin in.
      expect((await canary.admit(none, candidates, 0.34)).admitted).toEqual([0, 1]);
    });
  });
});
