import { seededRandom } from '../../seeded-random';
import type { GraphSize } from '../graph-size';
import { TRAINING_LOSSES } from '../training-settings';
import type { EngineConfig, TrainingLoss, TrainingOverrides } from '../training-settings';

/**
 * Dropout on the input, the core and after BN1, together, lightest first: none, very light (as
 * the large published searches chose, Ruffinelli et al. ICLR 2020), light, the reference's, and
 * the reference's with heavier input dropout (the `default` preset's on graphs of middling
 * density).
 */
const DROPOUTS = [
  { dropoutIn: 0, dropoutH1: 0, dropoutH2: 0 },
  { dropoutIn: 0.05, dropoutH1: 0, dropoutH2: 0.1 },
  { dropoutIn: 0.1, dropoutH1: 0.1, dropoutH2: 0.2 },
  { dropoutIn: 0.3, dropoutH1: 0.2, dropoutH2: 0.4 },
  { dropoutIn: 0.4, dropoutH1: 0.2, dropoutH2: 0.4 },
] as const;

/**
 * Entities up to which entity dimensions past 300 (up to 512, where the published tuned results
 * on FB15k-237 and WN18RR live) are searched: the scoring costs N x d_e per query and each
 * query's own matrix d_e², so wide trials only fit a tuning budget on smaller graphs; FB15k-237
 * (14,541 entities) is the largest graph of that size.
 */
export const WIDE_ENTITY_LIMIT = 15_000;

/** Entity dimensions, narrowest first; those past 300 only up to `WIDE_ENTITY_LIMIT`. */
const ENTITY_DIMS = [100, 200, 300, 400, 512] as const;

/** The entity dimensions searched on `graph` (all of them without a graph). */
export function entityDims(graph?: Pick<GraphSize, 'entities'>): number[] {
  const wide = graph === undefined || graph.entities <= WIDE_ENTITY_LIMIT;
  return ENTITY_DIMS.filter((d) => wide || d <= 300);
}

/**
 * A trial's epoch cost relative to the sized preset's, from its entity dimension alone: each
 * query's own `d_e x d_e` matrix grows with its square (the scoring only linearly, so this
 * errs long), the rest of the searched settings cost about the same per epoch.
 */
export function widthCost(trial: TrainingOverrides, sizedEntityDim: number): number {
  const ratio = (trial.entityDim ?? sizedEntityDim) / sizedEntityDim;
  return Math.max(1, ratio * ratio);
}

/** The settings the tuner searches, each over the values that mattered on some graph. */
export const SEARCH_SPACE = {
  relationDim: [10, 30, 100],
  entityDim: ENTITY_DIMS,
  lr: [0.001, 0.003, 0.01, 0.02],
  dropout: DROPOUTS,
  labelSmoothing: [0, 0.05, 0.1],
  batchSize: [64, 128, 256],
  inverseMode: ['new_relation', 'same_relation'],
  loss: TRAINING_LOSSES,
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
  | 'loss'
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
export function neighbours(
  sized: SearchedSettings,
  graph?: Pick<GraphSize, 'entities'>,
): TrainingOverrides[] {
  const dims = adjacent([10, 30, 100, 200], sized.relationDim);
  const widths = adjacent(entityDims(graph), sized.entityDim);
  const smoothing = adjacent([0, 0.05, 0.1], sized.labelSmoothing);
  const level = DROPOUTS.findIndex((d) => d.dropoutIn === sized.dropoutIn);
  const dropout = (k: number) => (k >= 0 && k < DROPOUTS.length ? DROPOUTS[k] : undefined);
  const lr = (f: number) => Number((sized.lr * f).toPrecision(3));
  const other = sized.inverseMode === 'new_relation' ? 'same_relation' : 'new_relation';
  const otherLoss: TrainingLoss = (sized.loss ?? 'bce') === 'bce' ? 'softmax' : 'bce';
  const passes: (TrainingOverrides | undefined)[][] = [
    [
      dims[1] === undefined ? undefined : { relationDim: dims[1] },
      { lr: lr(2) },
      dropout(level - 1),
      widths[1] === undefined ? undefined : { entityDim: widths[1] },
      { batchSize: Math.max(32, sized.batchSize / 2) },
      smoothing[1] === undefined ? undefined : { labelSmoothing: smoothing[1] },
      { inverseMode: other },
      { loss: otherLoss },
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
  // (A settings record without a loss trained with BCE: `{ loss: 'softmax' }` is a change there.)
  return passes
    .flat()
    .filter((t): t is TrainingOverrides => t !== undefined)
    .filter(changes);
}

/**
 * `count` distinct trial settings, the same for the same seed (and graph size): first the
 * sized preset itself (empty overrides, so tuning never does worse than not tuning on the
 * validation split), then its one-setting neighbours, then random points of `SEARCH_SPACE`
 * (entity dimensions past 300 only on graphs of at most `WIDE_ENTITY_LIMIT` entities).
 */
export function sampleTrials(
  count: number,
  seed: number,
  sized: SearchedSettings,
  graph?: Pick<GraphSize, 'entities'>,
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
  for (const trial of neighbours(sized, graph)) add(trial);
  const widths = entityDims(graph);
  // The space has 8,640 points (3,456 past the wide limit); give up on distinctness long
  // before sampling could loop.
  for (let attempt = 0; trials.length < count && attempt < count * 50; attempt++) {
    add({
      relationDim: pick(SEARCH_SPACE.relationDim, random),
      entityDim: pick(widths, random),
      lr: pick(SEARCH_SPACE.lr, random),
      ...pick(SEARCH_SPACE.dropout, random),
      labelSmoothing: pick(SEARCH_SPACE.labelSmoothing, random),
      batchSize: pick(SEARCH_SPACE.batchSize, random),
      inverseMode: pick(SEARCH_SPACE.inverseMode, random),
      loss: pick(SEARCH_SPACE.loss, random),
    });
  }
  return trials;
}
