/** Scored examples for fitting or measuring a calibrator: a logit, a 0/1 label, a weight. */
export interface Samples {
  logits: Float64Array;
  labels: Uint8Array;
  weights: Float64Array;
}

export function samplesOf(
  logits: ArrayLike<number>,
  labels: ArrayLike<number>,
  weights?: ArrayLike<number>,
): Samples {
  const n = logits.length;
  if (labels.length !== n || (weights && weights.length !== n)) {
    throw new Error('logits, labels and weights must have the same length');
  }
  return {
    logits: Float64Array.from(logits),
    labels: Uint8Array.from(labels),
    weights: weights ? Float64Array.from(weights) : new Float64Array(n).fill(1),
  };
}

/** The samples at `indexes`, in that order. */
export function subset(samples: Samples, indexes: ArrayLike<number>): Samples {
  const n = indexes.length;
  const out: Samples = {
    logits: new Float64Array(n),
    labels: new Uint8Array(n),
    weights: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const j = indexes[i] as number;
    out.logits[i] = samples.logits[j] as number;
    out.labels[i] = samples.labels[j] as number;
    out.weights[i] = samples.weights[j] as number;
  }
  return out;
}

export function concatSamples(parts: Samples[]): Samples {
  const n = parts.reduce((sum, p) => sum + p.logits.length, 0);
  const out: Samples = {
    logits: new Float64Array(n),
    labels: new Uint8Array(n),
    weights: new Float64Array(n),
  };
  let offset = 0;
  for (const p of parts) {
    out.logits.set(p.logits, offset);
    out.labels.set(p.labels, offset);
    out.weights.set(p.weights, offset);
    offset += p.logits.length;
  }
  return out;
}

/** Total weight of the positives and of the negatives. */
export function classWeights(samples: Samples): { positive: number; negative: number } {
  let positive = 0;
  let negative = 0;
  for (let i = 0; i < samples.labels.length; i++) {
    if (samples.labels[i]) positive += samples.weights[i] as number;
    else negative += samples.weights[i] as number;
  }
  return { positive, negative };
}
