/**
 * Where a training batch of ours goes, phase by phase, against the floor of each phase on this
 * machine (FLOPs at the measured sgemm peak, bytes at the measured copy bandwidth, the larger of
 * the two for products that move more than they compute), and the
 * memory bound of the issue (parameters + Adam state + one batch's activations).
 */

import type { BlasProducts } from './runners';

export interface ModelSizes {
  entities: number;
  /** Relations the model embeds (reverses included in r_reverse mode). */
  relations: number;
  de: number;
  dr: number;
  batch: number;
  /** Expected distinct relations per batch. */
  distinct: number;
}

/** `neptune train --max-batches` prints `  <phase>  <ms> ms/batch  <pct>%` per phase. */
export function parsePhases(output: string): Map<string, number> {
  const phases = new Map<string, number>();
  for (const match of output.matchAll(/^ {2}(\S.*?)\s+([\d.]+) ms\/batch/gm)) {
    phases.set(match[1] as string, Number(match[2]));
  }
  return phases;
}

/** Trainable parameters: E, R, W (BatchNorm and slope are negligible). */
export function parameterCount(s: ModelSizes): number {
  return s.entities * s.de + s.relations * s.dr + s.dr * s.de * s.de;
}

/** Floats of one batch's large activations: logits, the dropped-out E, the cores A and dA. */
export function activationFloats(s: ModelSizes): number {
  return (
    s.batch * s.entities + s.entities * s.de + 2 * s.distinct * s.de * s.de + 20 * s.batch * s.de
  );
}

interface Group {
  name: string;
  phases: string[];
  /** The peer BLAS measurement of the same products, for the GEMM phases. */
  blas?: keyof BlasProducts;
  /** Floor in ms per batch. */
  floor: (s: ModelSizes, gflops: number, gbs: number) => number;
}

const gemmMs = (flop: number, gflops: number) => flop / gflops / 1e6;
const bytesMs = (bytes: number, gbs: number) => bytes / gbs / 1e6;
/** A product's floor: its arithmetic at the sgemm peak or its memory traffic, whichever is more. */
const rooflineMs = (flop: number, bytes: number, gflops: number, gbs: number) =>
  Math.max(gemmMs(flop, gflops), bytesMs(bytes, gbs));

/**
 * Phase groups and their floors (forward + backward = 3 products of the forward's size). The
 * products with a short inner side (the R·W products at a small d_r, the per-example core
 * product) do a few dozen multiply-adds per element they must move, so their floor is the
 * larger of their arithmetic and their traffic: W and the cores A (U x d_e², f32) read or
 * written once per product.
 */
const GROUPS: Group[] = [
  {
    name: 'R·W products (fwd A = R_U·W, bwd dR and dW)',
    phases: ['fwd R.W gemm', 'bwd R/W gemms'],
    blas: 'relationCores',
    // Each of A = R_U·W, dR = dA·Wᵀ and dW = R_Uᵀ·dA moves W (d_r x d_e²) and A or dA (U x d_e²).
    floor: (s, g, b) =>
      3 *
      rooflineMs(2 * s.distinct * s.dr * s.de * s.de, 4 * (s.dr + s.distinct) * s.de * s.de, g, b),
  },
  {
    name: 'scoring products (logits, dx2, dE)',
    phases: ['fwd logits gemm', 'bwd logits gemms'],
    blas: 'scoring',
    floor: (s, g) => gemmMs(3 * 2 * s.batch * s.de * s.entities, g),
  },
  {
    name: 'per-example core product (fwd, bwd)',
    phases: ['fwd core product', 'bwd core product'],
    // The forward reads A, the backward reads A and writes dA (U x d_e² each).
    floor: (s, g, b) =>
      rooflineMs(3 * 2 * s.batch * s.de * s.de, 3 * 4 * s.distinct * s.de * s.de, g, b),
  },
  {
    name: 'Adam (read p, g, m, v; write p, m, v)',
    phases: ['adam'],
    floor: (s, _g, b) => bytesMs(7 * 4 * parameterCount(s), b),
  },
  {
    name: 'loss (read and write B x N)',
    phases: ['loss'],
    floor: (s, _g, b) => bytesMs(2 * 4 * s.batch * s.entities, b),
  },
  {
    name: 'entity dropout copy (N x d_e)',
    phases: ['fwd E dropout'],
    floor: (s, _g, b) => bytesMs(2 * 4 * s.entities * s.de, b),
  },
  {
    name: 'BatchNorm, activation, gathers',
    phases: ['fwd bn0+gather', 'fwd bn1+act', 'bwd act+bn1', 'bwd bn0+scatter'],
    floor: () => 0,
  },
];

export interface BreakdownRow {
  group: string;
  oursMs: number;
  floorMs: number;
  /** The peer's BLAS on the same products (GEMM phases only), ms per batch. */
  blasMs?: number;
}

export function breakdown(
  phases: Map<string, number>,
  s: ModelSizes,
  gflops: number,
  gbs: number,
  blas?: BlasProducts,
): BreakdownRow[] {
  return GROUPS.map((g) => ({
    group: g.name,
    oursMs: g.phases.reduce((sum, p) => sum + (phases.get(p) ?? 0), 0),
    floorMs: g.floor(s, gflops, gbs),
    ...(g.blas && blas ? { blasMs: blas[g.blas] } : {}),
  }));
}
