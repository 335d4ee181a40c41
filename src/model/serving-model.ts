import path from 'node:path';
import { readCalibrationFile, servingCalibration } from './calibration';
import type { ServingCalibration } from './calibration';
import { readRules } from './rules/rules-file';
import type { RuleSet } from './rules/rule-types';
import type { GraphIndex } from './rules/graph-index';
import { loadVersionGraph } from './rules/version-graph';
import { servedCombiner, versionWalker } from './rules/served-combiner';
import type { RuleWalker } from './rules/rule-walker';
import type { ServedCombiner } from './rules/served-combiner';
import { Scorer } from './scorer';
import { loadScorerAsync } from './store/model-store';
import { readSnapshotRecord } from './store/snapshot-record';
import type { SnapshotRecord } from './store/snapshot-record';
import { readTypesFile, TYPES_FILE } from './types/types-file';
import { ErrorCode, KgcError } from '../errors';
import { ServingTypes } from './types/serving-types';
import { ServedSuggestions } from './suggestions/served-suggestions';
import { readCanaryFile } from './fold-in/canary-file';
import type { FoldedRows } from './fold-in/fold-in-cache';

/** The model answering queries, where it came from, and the version its answers carry. */
export interface ServingModel {
  scorer: Scorer;
  /** The model directory's name (never a full path: it reaches clients). */
  source: string;
  version: string;
  /** The version's calibrators (calibration.json); null: the directory has none, the sigmoid. */
  calibration: ServingCalibration | null;
  /** Path rules mined with the version (absent: reasons fall back to similar entities). */
  rules?: RuleSet;
  /** The version's domains and ranges (types.json); undefined: it has none, nothing is filtered. */
  types?: ServingTypes;
  /**
   * The version's graph in the model's ids (graph.bin): reasons are searched here and confirmed
   * against Neo4j; undefined: the directory has none, reasons are read from Neo4j directly.
   */
  graph?: GraphIndex;
  /**
   * How the version's answers add its rules' evidence to the model's logit (combiner.json with
   * rules.json and graph.bin); undefined: the model answers alone.
   */
  combiner?: ServedCombiner;
  /**
   * The version's rules walked in its graph (rules.json with graph.bin): the edge calibrator
   * hears their evidence whether or not the combiner ranks with it.
   */
  walker?: RuleWalker;
  /**
   * The version's suggestions across the graph (suggestions.bin, or an older version's
   * suggestions.json; read when asked for).
   */
  suggestions?: ServedSuggestions;
  /** The graph it was trained from (version.json); undefined: the directory records none. */
  snapshot?: SnapshotRecord;
  /**
   * Entities folded in after training (ids from `baseEntities` on); absent: none. `graph` holds
   * no rows for them: reasons that touch one are read from Neo4j.
   */
  folded?: { ids: ReadonlySet<string>; baseEntities: number };
  /** Entities whose fold-in was held back (fold-in-canary.ts): they say so when asked for. */
  foldInHeldBack?: ReadonlySet<string>;
  /** The version's canary edges (canary.json, flat [h, r, t, ...]); absent: older versions. */
  canary?: Uint32Array;
}

/**
 * The version's model with folded-in entities appended (ids n..n+k): they are scored and
 * ranked as candidates like the version's own, typed by their edges and labels. Everything
 * else (calibration, rules, graph, stored suggestions) is the version's, unchanged.
 */
export function withFoldedEntities(base: ServingModel, rows: FoldedRows): ServingModel {
  if (rows.names.length === 0) return base;
  return {
    ...base,
    scorer: base.scorer.withEntities(rows.names, rows.embeddings),
    ...(base.types ? { types: base.types.withFolded(rows.types) } : {}),
    folded: { ids: new Set(rows.names), baseEntities: base.scorer.entities.length },
  };
}

/**
 * The serving view of a loaded scorer and what its directory keeps beside the weights. The one
 * place that reads a version's serving files: both load paths below go through it.
 */
function servingModel(scorer: Scorer, dir: string, source: string, version: string): ServingModel {
  const file = readCalibrationFile(dir);
  const calibration = file
    ? servingCalibration(file.table, scorer.relations, file.edge?.table)
    : null;
  const rules = readRules(dir);
  const snapshot = readSnapshotRecord(dir);
  const canary = readCanaryFile(dir, scorer.entities.length, scorer.relations.length);
  return {
    scorer,
    source,
    version,
    calibration,
    ...(rules ? { rules } : {}),
    ...servingTypes(dir, scorer, source),
    suggestions: new ServedSuggestions(dir, scorer.entities),
    ...(snapshot ? { snapshot } : {}),
    ...(canary ? { canary } : {}),
  };
}

/** The version's types.json, when it has one, checked against the model's vocabulary. */
function servingTypes(dir: string, scorer: Scorer, source: string): { types?: ServingTypes } {
  const typesFile = readTypesFile(dir);
  if (!typesFile) return {};
  // Types learned for another vocabulary would mark the wrong entities.
  const sameRelations = typesFile.relations.join('\n') === scorer.relations.join('\n');
  if (typesFile.entities !== scorer.entities.length || !sameRelations) {
    throw new KgcError(
      ErrorCode.MODEL_INVALID,
      `${TYPES_FILE} in ${source} was learned for another vocabulary than the model's; delete it to serve the version untyped.`,
    );
  }
  return { types: new ServingTypes(typesFile) };
}

/**
 * The model with its version's graph, when the directory has one (built between turns), and
 * with it its rules' walker and the combiner of model and rules, when the version has them.
 */
async function withGraph(model: ServingModel, dir: string): Promise<ServingModel> {
  const { entities, relations } = model.scorer;
  const graph = await loadVersionGraph(dir, { entities, relations });
  if (!graph) return model;
  const walker = versionWalker(dir, model.rules, graph, relations);
  const combiner = servedCombiner(dir, walker, relations);
  return { ...model, graph, ...(walker ? { walker } : {}), ...(combiner ? { combiner } : {}) };
}

/** Loads a model directory for serving; unless given, its version is the directory's name. */
export async function loadServingModel(dir: string, version?: string): Promise<ServingModel> {
  const name = path.basename(path.resolve(dir));
  return withGraph(servingModel(Scorer.load(dir), dir, name, version ?? name), dir);
}

/** A registered version, loaded off the JS thread (hot reload in a serving process). */
export async function loadServingModelAsync(dir: string, version: string): Promise<ServingModel> {
  return withGraph(servingModel(await loadScorerAsync(dir), dir, version, version), dir);
}
