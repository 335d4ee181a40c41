import path from 'node:path';
import { ErrorCode, isKgcError } from '../errors';
import { EventLoopTurns, TURN_CHECK_EVERY } from '../event-loop-turns';
import type { DenseGraph } from '../export';
import { hasKey } from '../export';
import { evaluate, loadServingModelAsync, readVersionEdges, servedMetrics } from '../model';
import type { TrainingArrays } from '../model';
import { toModelIds } from './model-ids';

/** Above this many extra filter triples the candidate sets are not equalised (see below). */
const MAX_EQUALIZING_TRIPLES = 4_000_000;

/**
 * Held-out edges the gate scores at most. Ranking as a version serves walks its rules for each
 * question: on DebianPkg (144k entities) 31k questions took 298 s against 26 s for the model
 * alone, for each side; 10,000 edges still resolve an MRR difference of a few thousandths.
 */
export const MAX_GATE_EDGES = 10_000;

/**
 * The comparable edges the gate scores: all of them up to `max`, else the `max` with the
 * smallest triple keys (hashes of the triple alone: a uniform sample, and the same edges from
 * one snapshot to the next), in triple order.
 */
export function gateSample(comparable: number[], keys: Float64Array, max: number): number[] {
  if (comparable.length <= max) return comparable;
  return [...comparable]
    .sort((a, b) => (keys[a] as number) - (keys[b] as number))
    .slice(0, max)
    .sort((a, b) => a - b);
}

export interface GateInput {
  graph: DenseGraph;
  /** Per-triple keys of `graph` (tripleKeys().keys), in triple order. */
  keys: Float64Array;
  /** Triple indexes of the current held-out test edges. */
  test: Int32Array;
  candidateDir: string;
  active: { version: string; dir: string };
  threads?: number;
}

export interface GateResult {
  activeVersion: string;
  /** MRR as the version serves: the model's logit plus the rules' evidence its combiner adds. */
  candidateMrr: number | null;
  activeMrr: number | null;
  /** MRR of the model alone (the rules left out); equal to the served one without a combiner. */
  candidateModelMrr: number | null;
  activeModelMrr: number | null;
  /** Held-out test edges both versions were scored on. */
  compared: number;
  /** Test edges left out: an entity or relation the active version never saw. */
  leftOutUnknown: number;
  /** Test edges left out: the active version trained on them. */
  leftOutTrained: number;
  /** Comparable test edges left out of a large held-out set (MAX_GATE_EDGES are scored). */
  leftOutSampled: number;
  /** Edges the active version trained on (0: an empty version, nothing to defend). */
  activeTrained: number;
  /** Entities both versions rank over (those both know). */
  rankedEntities: number;
  /** False when ranking over the common entities would have cost too much (each ranks over its own). */
  equalized: boolean;
  /** Set when the active version's files are missing or corrupt: it cannot be scored. */
  activeInvalid?: string;
}

interface Side {
  entities: string[];
  relations: string[];
  /** current entity id -> this side's id, -1 when unknown */
  entity: Int32Array;
  relation: Int32Array;
  /** this side's entities the other side lacks */
  extra: number[];
}

function vocabSide(
  graph: DenseGraph,
  entities: string[],
  relations: string[],
  common: Set<string>,
): Side {
  const entityIndex = new Map(entities.map((e, i) => [e, i]));
  const relationIndex = new Map(relations.map((r, i) => [r, i]));
  return {
    entities,
    relations,
    entity: Int32Array.from(graph.entities, (e) => entityIndex.get(e) ?? -1),
    relation: Int32Array.from(graph.relationNames, (r) => relationIndex.get(r) ?? -1),
    extra: entities.flatMap((e, i) => (common.has(e) ? [] : [i])),
  };
}

/**
 * The dataset one side is scored on, in that side's vocabulary (the engine requires it):
 * `test` holds the compared edges; `train` holds every other current edge the side can name,
 * which only serves as the filter. When `equalize`, for each compared query the entities only
 * this side knows are added as known answers too, so filtered ranking skips them and both
 * sides rank the true answer among the same, common entities.
 */
async function sideData(
  graph: DenseGraph,
  side: Side,
  compared: Int32Array,
  equalize: boolean,
  turns: EventLoopTurns,
) {
  const inTest = new Uint8Array(graph.heads.length);
  for (const i of compared) inTest[i] = 1;
  const train: number[] = [];
  const test: number[] = [];
  for (let i = 0; i < graph.heads.length; i++) {
    // Seconds on tens of millions of edges: the lease's renewal needs turns meanwhile.
    if (i % TURN_CHECK_EVERY === 0) await turns.maybeTurn();
    const h = side.entity[graph.heads[i] as number] as number;
    const r = side.relation[graph.relations[i] as number] as number;
    const t = side.entity[graph.tails[i] as number] as number;
    if (h < 0 || r < 0 || t < 0) continue;
    (inTest[i] ? test : train).push(h, r, t);
    if (inTest[i] && equalize) {
      for (const x of side.extra) train.push(h, r, x, x, r, t);
    }
  }
  const data: TrainingArrays = {
    entities: side.entities,
    relations: side.relations,
    train: Uint32Array.from(train),
    valid: new Uint32Array(0),
    test: Uint32Array.from(test),
  };
  return data;
}

/**
 * Scores the candidate and the active version on the same held-out edges, filtered the same
 * way. An edge is compared only when neither version trained on it (the candidate never trains
 * on test edges; the active version's trained-edge keys say what it saw) and the active version
 * knows its head, tail and relation; the edges left out are counted.
 */
export async function runPromotionGate(input: GateInput): Promise<GateResult> {
  try {
    return await compare(input);
  } catch (error) {
    // An active version that cannot be read or loaded cannot keep its place.
    if (!isKgcError(error) || error.code !== ErrorCode.MODEL_INVALID) throw error;
    return {
      activeVersion: input.active.version,
      candidateMrr: null,
      activeMrr: null,
      candidateModelMrr: null,
      activeModelMrr: null,
      compared: 0,
      leftOutUnknown: 0,
      leftOutTrained: 0,
      leftOutSampled: 0,
      activeTrained: 0,
      rankedEntities: 0,
      equalized: false,
      activeInvalid: error.message,
    };
  }
}

async function compare(input: GateInput): Promise<GateResult> {
  const { graph } = input;
  const turns = new EventLoopTurns();
  const old = readVersionEdges(input.active.dir);
  await turns.turn();
  const current = new Set(graph.entities);
  const common = new Set(old.entities.filter((e) => current.has(e)));
  await turns.turn();
  const active = vocabSide(graph, old.entities, old.relations, common);
  await turns.turn();
  const candidate = vocabSide(graph, graph.entities, graph.relationNames, common);
  await turns.turn();

  let leftOutTrained = 0;
  let leftOutUnknown = 0;
  const kept: number[] = [];
  for (const i of input.test) {
    if (hasKey(old.trained, input.keys[i] as number)) leftOutTrained++;
    else if (
      (active.entity[graph.heads[i] as number] as number) < 0 ||
      (active.entity[graph.tails[i] as number] as number) < 0 ||
      (active.relation[graph.relations[i] as number] as number) < 0
    ) {
      leftOutUnknown++;
    } else kept.push(i);
  }
  const compared = Int32Array.from(gateSample(kept, input.keys, MAX_GATE_EDGES));
  const extraTriples = 2 * compared.length * (active.extra.length + candidate.extra.length);
  const equalized = extraTriples <= MAX_EQUALIZING_TRIPLES;
  const result: GateResult = {
    activeVersion: input.active.version,
    candidateMrr: null,
    activeMrr: null,
    candidateModelMrr: null,
    activeModelMrr: null,
    compared: compared.length,
    leftOutUnknown,
    leftOutTrained,
    leftOutSampled: kept.length - compared.length,
    activeTrained: old.trained.length,
    rankedEntities: equalized ? common.size : graph.entities.length,
    equalized,
  };
  if (compared.length === 0) return result;
  const threads = input.threads ?? 0;
  const candidateScores = await scoreSide(
    input.candidateDir,
    await sideData(graph, candidate, compared, equalized, turns),
    threads,
  );
  const activeScores = await scoreSide(
    input.active.dir,
    await sideData(graph, active, compared, equalized, turns),
    threads,
  );
  result.candidateMrr = candidateScores.served;
  result.activeMrr = activeScores.served;
  result.candidateModelMrr = candidateScores.model;
  result.activeModelMrr = activeScores.model;
  return result;
}

/**
 * One side's MRR on `data`'s test edges: the model alone (the engine's evaluation) and as the
 * version serves (its combiner's rule evidence added, walked in the version's own graph; the
 * same as the model's without a combiner).
 */
async function scoreSide(
  dir: string,
  data: TrainingArrays,
  threads: number,
): Promise<{ model: number; served: number }> {
  const model = (await evaluate(dir, data, 'test', threads)).overall.mrr;
  const serving = await loadServingModelAsync(dir, path.basename(dir));
  if (!serving.combiner) return { model, served: model };
  const toModel = toModelIds(serving.scorer, data);
  const asked = toModel(data.test);
  const served = await servedMetrics(serving.scorer, serving.combiner, asked, [
    toModel(data.train),
    asked,
  ]);
  return { model, served: served.overall.mrr };
}
