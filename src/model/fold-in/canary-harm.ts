/**
 * One-sided 95%: the canary admits folded rows while its harm estimate plus this many standard
 * errors stays within the tolerance. The estimate alone lets the true harm past the tolerance
 * about half the time the tolerance binds (a sample of 1,000 edges reads a few thousandths
 * either way), and more often, since admission stops where the sample happens to read low.
 */
export const HARM_MARGIN_Z = 1.645;

/**
 * The MRR a canary half has lost to folded rows, with the standard error of that estimate,
 * kept up to date as rows are counted in. An edge's two questions move together (a row that
 * lands near one end often lands near the other), so the sample is of edges: for n edges and Q
 * questions, harm = sum_e d_e / Q, with d_e an edge's loss over its questions, and its
 * variance n s^2(d) / Q^2.
 */
export class CanaryHarm {
  private readonly drops: Float64Array;
  private sum = 0;
  private squares = 0;

  /** `edges` edges (indexed 0..edges-1) of `questions` questions in all. */
  constructor(
    private readonly edges: number,
    private readonly questions: number,
  ) {
    this.drops = new Float64Array(edges);
  }

  /** Sets edge `e`'s loss, summed over its questions. */
  set(e: number, drop: number): void {
    const old = this.drops[e] as number;
    this.sum += drop - old;
    this.squares += drop * drop - old * old;
    this.drops[e] = drop;
  }

  /** The MRR lost: the mean loss per question. */
  get harm(): number {
    return this.sum / this.questions;
  }

  /** The harm's standard error over the edges; 0 under two edges (nothing to estimate it by). */
  get standardError(): number {
    const n = this.edges;
    if (n < 2) return 0;
    const variance = Math.max(0, (this.squares - (this.sum * this.sum) / n) / (n - 1));
    return Math.sqrt(n * variance) / this.questions;
  }
}
