import fs from 'node:fs';
import path from 'node:path';
import { fromNativeMetrics, type Metrics } from '../metrics';
import { mapEngineError, nativeEngine } from '../native-engine';
import { toNativeData, type TrainingArrays } from '../training-data';
import type { Split } from '../evaluate';
import { learnTypes } from './learn-types';
import { candidateMask, ServingTypes } from './serving-types';
import type { StructureSettings } from './types-file';

/** Byte-wise (UTF-8) order, as the engine sorts a dataset folder's vocabularies. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * A dataset folder (train/valid/test.txt) as arrays whose ids are the engine's own for that
 * folder (vocabularies over all three splits, byte-wise sorted), so a mask built here lines up
 * with the model's vocabulary (the engine checks it).
 */
export function readDatasetArrays(dir: string): TrainingArrays {
  const splits = ['train', 'valid', 'test'].map((name) =>
    fs
      .readFileSync(path.join(dir, `${name}.txt`), 'utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => line.replace(/\r$/, '').split('\t') as [string, string, string]),
  );
  const entities = [...new Set(splits.flat().flatMap(([h, , t]) => [h, t]))].sort(byteOrder);
  const relations = [...new Set(splits.flat().map(([, r]) => r))].sort(byteOrder);
  const e = new Map(entities.map((id, i) => [id, i]));
  const r = new Map(relations.map((id, i) => [id, i]));
  const ids = (triples: [string, string, string][]) =>
    Uint32Array.from(
      triples.flatMap(([h, rel, t]) => [e.get(h), r.get(rel), e.get(t)]) as number[],
    );
  const [train, valid, test] = splits.map(ids) as [Uint32Array, Uint32Array, Uint32Array];
  return { entities, relations, train, valid, test };
}

export interface TypedEvaluationOptions {
  /** Entity id -> its labels (a label file); absent: the structural rule alone. */
  labels?: ReadonlyMap<string, readonly string[]>;
  structure?: StructureSettings;
  /** An answer outside its range is a miss (ranked last), as when choosing the structure rule. */
  missOutside?: boolean;
  threads?: number;
}

export interface TypedEvaluation {
  metrics: Metrics;
  /** Share of the split's queries (both directions) whose true answer is in its range. */
  answersInRange: number;
  /** Mean share of all entities in a queried range. */
  meanRangeShare: number;
}

/** The types learned from `data`'s train split (and `labels`), as serving would use them. */
export function trainSplitTypes(
  data: TrainingArrays,
  labels?: ReadonlyMap<string, readonly string[]>,
  structure?: StructureSettings,
): ServingTypes {
  const train = data.train;
  const count = train.length / 3;
  const column = (k: number) =>
    Uint32Array.from({ length: count }, (_, i) => train[3 * i + k] as number);
  let labelInput: { names: string[]; of: (number[] | undefined)[] } | undefined;
  if (labels && labels.size > 0) {
    const names: string[] = [];
    const index = new Map<string, number>();
    const of = data.entities.map((id) =>
      labels.get(id)?.map((name) => {
        if (!index.has(name)) {
          index.set(name, names.length);
          names.push(name);
        }
        return index.get(name) as number;
      }),
    );
    labelInput = { names, of };
  }
  return new ServingTypes(
    learnTypes({
      entityCount: data.entities.length,
      relations: data.relations,
      heads: column(0),
      relationIds: column(1),
      tails: column(2),
      labels: labelInput,
      structure,
    }),
  );
}

/**
 * Filtered metrics with each query's candidates restricted to the range (tail queries) or
 * domain (head queries) learned from the train split: the engine's exact masked ranking.
 */
export async function evaluateTyped(
  modelDir: string,
  data: TrainingArrays,
  split: Split,
  options: TypedEvaluationOptions = {},
): Promise<TypedEvaluation> {
  const types = trainSplitTypes(data, options.labels, options.structure);
  const bits = candidateMask(types, data.relations.length);
  const triples = split === 'valid' ? data.valid : data.test;
  let inRange = 0;
  let share = 0;
  const queries = (triples.length / 3) * 2;
  for (let i = 0; i < triples.length; i += 3) {
    const [h, r, t] = [triples[i], triples[i + 1], triples[i + 2]] as [number, number, number];
    inRange += Number(types.isConsistent(r, 'tail', t)) + Number(types.isConsistent(r, 'head', h));
    share +=
      (2 * types.entityCount -
        types.outOfRange(r, 'tail').length -
        types.outOfRange(r, 'head').length) /
      types.entityCount;
  }
  try {
    const native = await nativeEngine().evaluate(
      modelDir,
      toNativeData(data),
      split,
      options.threads ?? 0,
      { bits, missOutside: options.missOutside ?? false },
    );
    return {
      metrics: fromNativeMetrics(native),
      answersInRange: queries > 0 ? inRange / queries : 1,
      meanRangeShare: queries > 0 ? share / queries : 1,
    };
  } catch (error) {
    throw mapEngineError(error);
  }
}
