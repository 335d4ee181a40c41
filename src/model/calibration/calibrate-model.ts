import path from 'node:path';
import fs from 'node:fs';
import type { Direction } from '../../direction';
import { Scorer } from '../scorer';
import { applyCalibrator } from './calibrator';
import { calibrationMetrics, ECE_BINS, reliabilityBins } from './calibration-metrics';
import type { CalibrationMetrics } from './calibration-metrics';
import { buildCalibrationSet, negativeKeys, REJECTED_SOURCE } from './calibration-set';
import type { CalibrationSet } from './calibration-set';
import { RELIABILITY_FILE, writeCalibrationFile } from './calibration-file';
import type { CalibrationFile, CalibrationSummary, RelationMetrics } from './calibration-file';
import { edgeProbability, fitEdgeCalibration } from './edge-calibration';
import type { EdgeCalibrationGroup, EdgeFeatures } from './edge-calibration';
import { countingGraph, edgeFeatures } from './role-counts';
import type { GraphIndex } from '../rules/graph-index';
import { edgeRuleEvidence } from '../rules/edge-rule-evidence';
import type { EvidenceSource } from '../rules/rule-walker';
import { calibratedProbability, fitCalibrationTable, SHRINKAGE_PRIOR } from './fit-calibration';
import type { CalibrationGroup, CalibrationTable } from './fit-calibration';
import { renderReliabilityDiagram } from './reliability-diagram';
import { samplesOf, subset } from './samples';

/** What a model is calibrated with; every triple is flat [h, r, t, ...] in the model's ids. */
export interface CalibrationData {
  /** Every known edge (train + valid + test of the snapshot): never drawn as a negative. */
  known: Uint32Array;
  /**
   * The edges an edge's ends are counted in (its features; default `known`): what serving
   * counts in too (a version's graph.bin is its snapshot; a dataset's train.txt).
   */
  counted?: Uint32Array;
  /** Fitted on: held-out positives and known-false triples (rejections, valid_negatives). */
  fit: { name: string; positives: Uint32Array; negatives: Uint32Array };
  /** Measured on, with fresh corruptions: never the fitted negatives. */
  measure: { name: string; positives: Uint32Array; negatives: Uint32Array };
  seed: number;
  /**
   * The version's rules walked in the graph serving walks (graph.bin): the edge calibrator
   * hears their evidence; absent, its rule features are 0 (and their coefficients stay 0).
   */
  rules?: EvidenceSource;
}

export interface TripleScorer {
  relations: string[];
  entities: readonly string[];
  scoreTriples(h: Uint32Array, r: Uint32Array, t: Uint32Array, d: Direction): Float32Array;
}

/** Logits of every example of a set, each in its own direction. */
export function scoreSet(scorer: TripleScorer, set: CalibrationSet): Float64Array {
  const logits = new Float64Array(set.labels.length);
  for (const [d, direction] of [
    [0, 'tail'],
    [1, 'head'],
  ] as const) {
    const rows: number[] = [];
    set.directions.forEach((x, i) => x === d && rows.push(i));
    const pick = (a: Uint32Array) => Uint32Array.from(rows, (i) => a[i] as number);
    const scores = scorer.scoreTriples(
      pick(set.heads),
      pick(set.relations),
      pick(set.tails),
      direction,
    );
    rows.forEach((i, k) => (logits[i] = scores[k] as number));
  }
  return logits;
}

const DIRECTIONS: Direction[] = ['tail', 'head'];

/** The examples of a set grouped by (relation, direction), in relation order. */
function groups(set: CalibrationSet, logits: Float64Array, names: string[]): CalibrationGroup[] {
  const members = new Map<number, number[]>();
  set.relations.forEach((r, i) => {
    const g = r * 2 + (set.directions[i] as number);
    const list = members.get(g) ?? [];
    list.push(i);
    members.set(g, list);
  });
  const all = samplesOf(logits, set.labels, set.weights);
  return [...members.keys()]
    .sort((a, b) => a - b)
    .map((g) => ({
      relation: names[g >> 1] as string,
      direction: DIRECTIONS[g & 1] as Direction,
      samples: subset(all, members.get(g) as number[]),
    }));
}

/**
 * Weights of a relation's edge examples: positives 1, negatives P / |negatives| in all (1:1).
 * A relation with at least SHRINKAGE_PRIOR known-false edges (people's rejections, a labelled
 * negatives file) is weighed against those alone: sampled corruptions stand in for false edges
 * where there are too few real ones (chosen on FB13, held out on WN11: bench/trust/RESULTS.md).
 */
export function edgeWeights(labels: Uint8Array, rejected: boolean[]): Float64Array {
  const positives = labels.reduce((n, l) => n + l, 0);
  const knownFalse = rejected.filter(Boolean).length;
  const onlyKnownFalse = knownFalse >= SHRINKAGE_PRIOR;
  const negatives = onlyKnownFalse ? knownFalse : labels.length - positives;
  const negativeWeight = positives > 0 && negatives > 0 ? positives / negatives : 1;
  return Float64Array.from(labels, (label, j) =>
    label ? 1 : onlyKnownFalse && !rejected[j] ? 0 : negativeWeight,
  );
}

/**
 * A set's examples as edges, with their features (both questions' logits, their ends' counts
 * in `graph`, the rules' evidence from `rules`): the held-out positives once, the corruptions of
 * either end, and each rejection once, weighed by `edgeWeights`.
 */
async function edgeGroups(
  set: CalibrationSet,
  scorer: TripleScorer,
  graph: GraphIndex,
  rules: EvidenceSource | undefined,
): Promise<EdgeCalibrationGroup[]> {
  const rows: number[] = [];
  set.labels.forEach((label, i) => {
    const tailRow = set.directions[i] === 0;
    if (label ? tailRow : set.sources[i] !== REJECTED_SOURCE || tailRow) rows.push(i);
  });
  const pick = (a: Uint32Array) => Uint32Array.from(rows, (i) => a[i] as number);
  const [heads, relations, tails] = [pick(set.heads), pick(set.relations), pick(set.tails)];
  const tailLogits = scorer.scoreTriples(heads, relations, tails, 'tail');
  const headLogits = scorer.scoreTriples(heads, relations, tails, 'head');
  const evidence = rules ? await edgeRuleEvidence(rules, heads, relations, tails) : undefined;
  const members = new Map<number, number[]>();
  relations.forEach((r, k) => {
    const list = members.get(r) ?? [];
    list.push(k);
    members.set(r, list);
  });
  return [...members.keys()]
    .sort((a, b) => a - b)
    .map((r) => {
      const ks = members.get(r) as number[];
      const features = ks.map((k) =>
        edgeFeatures(
          graph,
          heads[k] as number,
          r,
          tails[k] as number,
          tailLogits[k] as number,
          headLogits[k] as number,
          evidence && { tail: evidence.tail[k] as number, head: evidence.head[k] as number },
        ),
      );
      const labels = Uint8Array.from(ks, (k) => set.labels[rows[k] as number] as number);
      const rejected = ks.map((k) => set.sources[rows[k] as number] === REJECTED_SOURCE);
      const weights = edgeWeights(labels, rejected);
      return {
        relation: scorer.relations[r] as string,
        samples: {
          features,
          labels,
          weights,
        },
      };
    });
}

function measured(group: CalibrationGroup, table: CalibrationTable | null) {
  const { logits, labels, weights } = group.samples;
  const p = Array.from(logits, (z) =>
    table
      ? calibratedProbability(table, group.relation, group.direction, z)
      : applyCalibrator({ kind: 'sigmoid' }, z),
  );
  return { p, labels: Array.from(labels), weights: Array.from(weights) };
}

function metricsOf(parts: ReturnType<typeof measured>[]): CalibrationMetrics | null {
  const p = parts.flatMap((x) => x.p);
  if (p.length === 0) return null;
  return calibrationMetrics(
    p,
    parts.flatMap((x) => x.labels),
    parts.flatMap((x) => x.weights),
  );
}

/**
 * Fits the model's calibrators on `data.fit` and measures them on `data.measure`; returns the
 * calibration file's content, or null when there is nothing to fit on (no held-out positives).
 */
export async function calibrate(
  scorer: TripleScorer,
  data: CalibrationData,
): Promise<CalibrationFile | null> {
  const entities = scorer.entities.length;
  const relations = scorer.relations.length;
  const fitSet = buildCalibrationSet({
    entities,
    relations,
    known: data.known,
    positives: data.fit.positives,
    rejected: data.fit.negatives,
    seed: data.seed,
  });
  if (fitSet.mix.positives === 0) return null;
  const measureSet = buildCalibrationSet({
    entities,
    relations,
    known: data.known,
    positives: data.measure.positives,
    rejected: data.measure.negatives,
    exclude: negativeKeys(fitSet, relations, entities),
    seed: data.seed + 1,
  });
  const table = fitCalibrationTable(
    groups(fitSet, scoreSet(scorer, fitSet), scorer.relations),
    data.seed,
  );
  const measureGroups = groups(measureSet, scoreSet(scorer, measureSet), scorer.relations);
  const before = measureGroups.map((g) => measured(g, null));
  const after = measureGroups.map((g) => measured(g, table));
  const perRelation: RelationMetrics[] = measureGroups.map((g, i) => ({
    relation: g.relation,
    direction: g.direction,
    before: metricsOf([before[i]!]) as CalibrationMetrics,
    after: metricsOf([after[i]!]) as CalibrationMetrics,
  }));
  const counted = await countingGraph(entities, relations, data.counted ?? data.known);
  const edgeTable = fitEdgeCalibration(await edgeGroups(fitSet, scorer, counted, data.rules));
  const edgeMeasure = await edgeGroups(measureSet, scorer, counted, data.rules);
  const edgeMetrics = (probability: (relation: string, f: EdgeFeatures) => number) =>
    metricsOf(
      edgeMeasure.map(({ relation, samples }) => ({
        p: samples.features.map((f) => probability(relation, f)),
        labels: Array.from(samples.labels),
        weights: Array.from(samples.weights),
      })),
    );
  const bins = (parts: ReturnType<typeof measured>[]) =>
    reliabilityBins(
      parts.flatMap((x) => x.p),
      parts.flatMap((x) => x.labels),
      parts.flatMap((x) => x.weights),
    );
  return {
    format: 1,
    fittedOn: data.fit.name,
    measuredOn: data.measure.name,
    ratio: '1:1',
    eceBins: ECE_BINS,
    before: metricsOf(before),
    after: metricsOf(after),
    fitMix: fitSet.mix,
    measureMix: measureSet.mix,
    table,
    perRelation,
    reliability: { before: bins(before), after: bins(after) },
    edge: {
      table: edgeTable,
      tailOnly: edgeMetrics((relation, f) =>
        calibratedProbability(table, relation, 'tail', f.tailLogit),
      ),
      after: edgeMetrics((relation, f) => edgeProbability(edgeTable, relation, f)),
    },
  };
}

export function summaryOf(file: CalibrationFile): CalibrationSummary {
  const { fittedOn, measuredOn, ratio, eceBins, before, after, fitMix, measureMix } = file;
  return { fittedOn, measuredOn, ratio, eceBins, before, after, fitMix, measureMix };
}

/**
 * Calibrates the model saved in `dir` (a version directory or a `kgc train --out` folder) and
 * writes calibration.json and reliability.svg into `outDir` (default: beside the weights, where
 * serving reads them). Null (nothing written) without positives.
 */
export async function calibrateModelDir(
  dir: string,
  data: CalibrationData,
  title: string,
  scorer: TripleScorer = Scorer.load(dir),
  outDir = dir,
): Promise<CalibrationSummary | null> {
  const file = await calibrate(scorer, data);
  if (!file) return null;
  const svg = await renderReliabilityDiagram(file.reliability, title);
  // The diagram first: calibration.json is what serving reads, so it is written last.
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, RELIABILITY_FILE), svg);
  writeCalibrationFile(outDir, file);
  return summaryOf(file);
}
