import { seededRandom } from '../../seeded-random';
import type { TrainingOverrides } from '../training-settings';

/** Dropout on the input, the core and after BN1, together: none, light, or the reference's. */
const DROPOUTS = [
  { dropoutIn: 0, dropoutH1: 0, dropoutH2: 0 },
  { dropoutIn: 0.1, dropoutH1: 0.1, dropoutH2: 0.2 },
  { dropoutIn: 0.3, dropoutH1: 0.2, dropoutH2: 0.4 },
] as const;

/** The settings the tuner searches, each over the values that mattered on some graph. */
export const SEARCH_SPACE = {
  relationDim: [10, 30, 100],
  entityDim: [100, 200],
  lr: [0.001, 0.003, 0.01],
  dropout: DROPOUTS,
  labelSmoothing: [0, 0.05, 0.1],
  batchSize: [64, 128, 256],
  inverseMode: ['new_relation', 'same_relation'],
} as const;

function pick<T>(values: readonly T[], random: () => number): T {
  return values[Math.floor(random() * values.length)] as T;
}

/**
 * `count` distinct trial settings from `SEARCH_SPACE`, the same for the same seed. The first is
 * empty: the preset as sized for the graph, so tuning never does worse than not tuning on the
 * validation split.
 */
export function sampleTrials(count: number, seed: number): TrainingOverrides[] {
  const random = seededRandom(seed);
  const trials: TrainingOverrides[] = [{}];
  const seen = new Set<string>();
  // The space has 972 points; give up on distinctness long before sampling could loop.
  for (let attempt = 0; trials.length < count && attempt < count * 50; attempt++) {
    const trial: TrainingOverrides = {
      relationDim: pick(SEARCH_SPACE.relationDim, random),
      entityDim: pick(SEARCH_SPACE.entityDim, random),
      lr: pick(SEARCH_SPACE.lr, random),
      ...pick(SEARCH_SPACE.dropout, random),
      labelSmoothing: pick(SEARCH_SPACE.labelSmoothing, random),
      batchSize: pick(SEARCH_SPACE.batchSize, random),
      inverseMode: pick(SEARCH_SPACE.inverseMode, random),
    };
    const key = JSON.stringify(trial);
    if (seen.has(key)) continue;
    seen.add(key);
    trials.push(trial);
  }
  return trials;
}
