import type { Samples } from './samples';

/** Isotonic probabilities stay in [CLIP, 1 - CLIP]: a finite log-loss for any later label. */
export const ISOTONIC_CLIP = 1e-3;

export interface IsotonicFit {
  /** Logits, ascending. */
  x: number[];
  /** Probabilities, non-decreasing, clipped to [ISOTONIC_CLIP, 1 - ISOTONIC_CLIP]. */
  y: number[];
}

/**
 * Pool-adjacent-violators on `values` (already in order) with `weights`: the non-decreasing
 * sequence closest in weighted squared error. Returns the blocks (start index, end exclusive,
 * value).
 */
export function poolAdjacentViolators(
  values: ArrayLike<number>,
  weights?: ArrayLike<number>,
): { start: number; end: number; value: number }[] {
  const blocks: { start: number; end: number; value: number; weight: number }[] = [];
  for (let i = 0; i < values.length; i++) {
    const w = weights ? (weights[i] as number) : 1;
    blocks.push({ start: i, end: i + 1, value: values[i] as number, weight: w });
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1]!;
      const previous = blocks[blocks.length - 2]!;
      if (previous.value <= last.value) break;
      const weight = previous.weight + last.weight;
      const value =
        weight > 0
          ? (previous.value * previous.weight + last.value * last.weight) / weight
          : (previous.value + last.value) / 2;
      blocks.splice(blocks.length - 2, 2, { start: previous.start, end: last.end, value, weight });
    }
  }
  return blocks.map(({ start, end, value }) => ({ start, end, value }));
}

/**
 * Isotonic regression of the label on the logit. Equal logits are pooled first (one point);
 * each PAV block contributes its lowest and highest logit at the block's value, and the
 * calibrator interpolates linearly between them, so it is continuous and non-decreasing.
 */
export function fitIsotonic(samples: Samples): IsotonicFit {
  const order = Array.from(samples.logits.keys()).sort(
    (i, j) => (samples.logits[i] as number) - (samples.logits[j] as number),
  );
  const xs: number[] = [];
  const ys: number[] = [];
  const ws: number[] = [];
  for (const i of order) {
    const z = samples.logits[i] as number;
    const w = samples.weights[i] as number;
    const label = samples.labels[i] as number;
    const last = xs.length - 1;
    if (last >= 0 && xs[last] === z) {
      const weight = (ws[last] as number) + w;
      ys[last] =
        weight > 0 ? ((ys[last] as number) * (ws[last] as number) + label * w) / weight : label;
      ws[last] = weight;
    } else {
      xs.push(z);
      ys.push(label);
      ws.push(w);
    }
  }
  const x: number[] = [];
  const y: number[] = [];
  for (const block of poolAdjacentViolators(ys, ws)) {
    const value = Math.min(Math.max(block.value, ISOTONIC_CLIP), 1 - ISOTONIC_CLIP);
    x.push(xs[block.start] as number);
    y.push(value);
    if (block.end - 1 > block.start) {
      x.push(xs[block.end - 1] as number);
      y.push(value);
    }
  }
  return { x, y };
}
