import fs from 'node:fs';
import path from 'node:path';
import { EntityLayout } from './entity-layout';
import { LineFile } from './line-file';
import {
  generateScaleGraph,
  RELATIONS,
  type ScaleGraphCounts,
  type ScaleGraphOptions,
  type SplitName,
} from './scale-graph';

/** The label file's name, as `kgc export` writes it. */
export const LABELS_FILE = 'labels.tsv';
const SPLITS: readonly SplitName[] = ['train', 'valid', 'test'];

export interface ScaleGraphFiles extends ScaleGraphCounts {
  /** `train.txt`, `valid.txt`, `test.txt`: `head<TAB>relation<TAB>tail`, the datasets' format. */
  splits: Record<SplitName, string>;
  /** `id<TAB>Label[;Label…]` for every entity, as `kgc ingest --labels` reads. */
  labels: string;
  seconds: number;
}

/**
 * Writes a generated graph into `dir` as a dataset folder (bench/datasets.ts reads it) plus its
 * label file, streaming: memory holds the generator's dedupe set and one block per file.
 */
export function writeScaleGraph(dir: string, options: ScaleGraphOptions): ScaleGraphFiles {
  const started = Date.now();
  fs.mkdirSync(dir, { recursive: true });
  const layout = new EntityLayout(options.entities);
  const splits = Object.fromEntries(
    SPLITS.map((split) => [split, path.join(dir, `${split}.txt`)]),
  ) as Record<SplitName, string>;
  const files = Object.fromEntries(
    SPLITS.map((split) => [split, new LineFile(splits[split])]),
  ) as Record<SplitName, LineFile>;
  let counts: ScaleGraphCounts;
  try {
    counts = generateScaleGraph(options, (split, head, relation, tail) => {
      files[split].add(`${layout.id(head)}\t${RELATIONS[relation]}\t${layout.id(tail)}\n`);
    });
  } finally {
    for (const file of Object.values(files)) file.close();
  }
  const labels = new LineFile(path.join(dir, LABELS_FILE));
  try {
    for (let entity = 0; entity < layout.entities; entity++) {
      labels.add(`${layout.id(entity)}\t${layout.labels(entity).join(';')}\n`);
    }
  } finally {
    labels.close();
  }
  return { ...counts, splits, labels: labels.path, seconds: (Date.now() - started) / 1000 };
}
