import { seededRandom } from '../../seeded-random';
import type { EngineConfig, TrainingOverrides } from '../training-settings';

/**
 * Dropout on the input, the core and after BN1, together, lightest first: none, light, the
 * reference's, and the reference's with heavier input dropout (the `default` preset's on graphs
 * of middling density).
 */
const DROPOUTS = [
  { dropoutIn: 0, dropoutH1: 0, dropoutH2: 0 },
  { dropoutIn: 0.1, dropoutH1: 0.1, dropoutH2: 0.2 },
  { dropoutIn: 0.3, dropoutH1: 0.2, dropoutH2: 0.4 },
  { dropoutIn: 0.4, dropoutH1: 0.2, dropoutH2: 0.4 },
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

/** The sized preset's values of the searched settings. */
export type SearchedSettings = Pick<
  EngineConfig,
  | 'relationDim'
  | 'entityDim'
  | 'lr'
  | 'dropoutIn'
  | 'dropoutH1'
  | 'dropoutH2'
  | 'labelSmoothing'
  | 'batchSize'
  | 'inverseMode'
>;

function pick<T>(values: readonly T[], random: () => number): T {
  return values[Math.floor(random() * values.length)] as T;
}

/** The values next to `value` in an ordered list that may not hold it: [below, above]. */
function adjacent(values: readonly number[], value: number): [number?, number?] {
  return [values.filter((v) => v < value).at(-1), values.find((v) => v > value)];
}

/**
 * One-setting changes of the sized preset, in two passes over the settings (one direction each,
 * then the other), so that a short list still touches every setting. Searching next to the
 * preset first: it is the best single guess, and far-off random settings rarely beat it.
 */
export function neighbours(sized: SearchedSettings): TrainingOverrides[] {
  const dims = adjacent([10, 30, 100, 200], sized.relationDim);
  const widths = adjacent([100, 200, 300], sized.entityDim);
  const smoothing = adjacent([0, 0.05, 0.1], sized.labelSmoothing);
  const level = DROPOUTS.findIndex((d) => d.dropoutIn === sized.dropoutIn);
  const dropout = (k: number) => (k >= 0 && k < DROPOUTS.length ? DROPOUTS[k] : undefined);
  const lr = (f: number) => Number((sized.lr * f).toPrecision(3));
  const other = sized.inverseMode === 'new_relation' ? 'same_relation' : 'new_relation';
  const passes: (TrainingOverrides | undefined)[][] = [
    [
      dims[1] === undefined ? undefined : { relationDim: dims[1] },
      { lr: lr(2) },
      dropout(level - 1),
      widths[1] === undefined ? undefined : { entityDim: widths[1] },
      { batchSize: Math.max(32, sized.batchSize / 2) },
      smoothing[1] === undefined ? undefined : { labelSmoothing: smoothing[1] },
      { inverseMode: other },
    ],
    [
      dims[0] === undefined ? undefined : { relationDim: dims[0] },
      { lr: lr(0.5) },
      level < 0 ? undefined : dropout(level + 1),
      widths[0] === undefined ? undefined : { entityDim: widths[0] },
      { batchSize: sized.batchSize * 2 },
      smoothing[0] === undefined ? undefined : { labelSmoothing: smoothing[0] },
    ],
  ];
  // A step that lands on the preset's own value (batch 32 halved to the floor of 32) is no change.
  const changes = (t: TrainingOverrides) =>
    Object.entries(t).some(([k, v]) => sized[k as keyof SearchedSettings] !== v);
  return passes
    .flat()
    .filter((t): t is TrainingOverrides => t !== undefined)
    .filter(changes);
}

/**
 * `count` distinct trial settings, the same for the same seed: first the sized preset itself
 * (empty overrides, so tuning never does worse than not tuning on the validation split), then
 * its one-setting neighbours, then random points of `SEARCH_SPACE`.
 */
export function sampleTrials(
  count: number,
  seed: number,
  sized: SearchedSettings,
): TrainingOverrides[] {
  const random = seededRandom(seed);
  const trials: TrainingOverrides[] = [{}];
  const seen = new Set<string>();
  const add = (trial: TrainingOverrides) => {
    const key = JSON.stringify(trial);
    if (trials.length >= count || seen.has(key)) return;
    seen.add(key);
    trials.push(trial);
  };
  for (const trial of neighbours(sized)) add(trial);
  // The space has 1,296 points; give up on distinctness long before sampling could loop.
  for (let attempt = 0; trials.length < count && attempt < count * 50; attempt++) {
    add({
      relationDim: pick(SEARCH_SPACE.relationDim, random),
      entityDim: pick(SEARCH_SPACE.entityDim, random),
      lr: pick(SEARCH_SPACE.lr, random),
      ...pick(SEARCH_SPACE.dropout, random),
      labelSmoothing: pick(SEARCH_SPACE.labelSmoothing, random),
      batchSize: pick(SEARCH_SPACE.batchSize, random),
      inverseMode: pick(SEARCH_SPACE.inverseMode, random),
    });
  }
  return trials;
}
