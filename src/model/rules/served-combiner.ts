import type { Direction } from '../../direction';
import { readCombiner } from './combiner-file';
import type { CombinerFile } from './combiner-file';
import type { GraphIndex } from './graph-index';
import { settingFor } from './rule-combiner';
import type { CombinerSetting } from './rule-combiner';
import type { Evidence } from './rule-evidence';
import { RuleWalker } from './rule-walker';
import type { WalkedEvidence } from './walked-evidence';
import type { EvidenceSource, WalkQuestion } from './rule-walker';
import type { RuleSet } from './rule-types';
import { readRules } from './rules-file';
import { loadVersionGraph } from './version-graph';

/** A question's rule evidence and the combiner's setting that weighs it. */
export interface CombinerEvidence {
  setting: CombinerSetting;
  found: WalkedEvidence;
}

/**
 * A version's answers as model + rules: its combiner (combiner.json) applied with its rules
 * (rules.json) walked in its graph (graph.bin). The served logit of candidate y for the query
 * (x, r, direction) is the model's logit + w · evidence(y), w and the aggregate the combiner's
 * for (r, direction); 0 where no rule reaches y or w is 0.
 */
export class ServedCombiner {
  constructor(
    readonly file: CombinerFile,
    readonly walker: RuleWalker,
    private readonly relations: readonly string[],
  ) {}

  /** Whether any query's answers use the rules (else the model answers alone everywhere). */
  get active(): boolean {
    return this.file.global.w > 0 || Object.values(this.file.groups).some((s) => s.w > 0);
  }

  setting(relation: number, direction: Direction): CombinerSetting {
    return settingFor(this.file, `${this.relations[relation] ?? ''}\t${direction}`);
  }

  /**
   * The rule evidence for the candidates of the query from `entity`, or undefined when its
   * setting leaves the model alone or the entity is not in the version's graph (folded in).
   * `source`: where the walks come from (default: walked now; a request's walked questions).
   * `answers`: the candidates the caller will look up, where it knows them (`EvidenceSource`).
   */
  evidence(
    entity: number,
    relation: number,
    direction: Direction,
    source: EvidenceSource = this.walker,
    answers?: readonly number[],
  ): CombinerEvidence | undefined {
    const setting = this.setting(relation, direction);
    if (setting.w === 0) return undefined;
    const found = source.evidence(entity, relation, direction, answers);
    return found ? { setting, found } : undefined;
  }

  /** `evidence` of each question (walked now), walked on the engine's worker threads. */
  async evidenceBatch(
    questions: readonly WalkQuestion[],
  ): Promise<(CombinerEvidence | undefined)[]> {
    const settings = questions.map((q) => this.setting(q.relation, q.direction));
    const walked = questions.filter((_, i) => (settings[i] as CombinerSetting).w !== 0);
    const found = await this.walker.evidenceBatch(walked);
    let next = 0;
    return settings.map((setting) => {
      if (setting.w === 0) return undefined;
      const evidence = found[next++];
      return evidence ? { setting, found: evidence } : undefined;
    });
  }
}

/** The served logit of a candidate with `evidence` under `setting`. */
export function combinedLogit(
  logit: number,
  setting: CombinerSetting,
  evidence: Evidence | undefined,
): number {
  return evidence === undefined ? logit : logit + ruleTerm(setting, evidence);
}

/** What `evidence` adds to a candidate's logit under `setting`. */
function ruleTerm(setting: CombinerSetting, evidence: Evidence): number {
  return setting.w * evidence[setting.aggregate];
}

/** What the i-th candidate of `found` adds to its logit under `setting` (as `ruleTerm`). */
export function ruleTermAt(setting: CombinerSetting, found: WalkedEvidence, i: number): number {
  return setting.w * found.aggregate(i, setting.aggregate);
}

/**
 * The version's rules walked in its graph: the walk budget is its combiner's (combiner.json),
 * the default for a version without one; undefined without rules or graph.
 */
export function versionWalker(
  dir: string,
  rules: RuleSet | undefined,
  graph: GraphIndex | undefined,
  relations: readonly string[],
): RuleWalker | undefined {
  if (!rules || !graph) return undefined;
  return new RuleWalker(rules, graph, relations, readCombiner(dir)?.walkBudget);
}

/**
 * The version's served combiner: its combiner.json with its rules walked, or undefined when one
 * of them is missing or the combiner leaves the model alone everywhere.
 */
export function servedCombiner(
  dir: string,
  walker: RuleWalker | undefined,
  relations: readonly string[],
): ServedCombiner | undefined {
  const file = walker && readCombiner(dir);
  if (!walker || !file) return undefined;
  const combiner = new ServedCombiner(file, walker, relations);
  return combiner.active ? combiner : undefined;
}

/**
 * What a model directory serves with beside the model (rules.json, graph.bin and combiner.json
 * read from it): its rules' walker and its combiner, each undefined where the folder lacks it.
 * Calibration, classification and evaluation score with them as serving does.
 */
export async function dirRules(
  dir: string,
  vocabulary: { entities: readonly string[]; relations: readonly string[] },
): Promise<{ walker?: RuleWalker; combiner?: ServedCombiner }> {
  const rules = readRules(dir);
  if (!rules) return {};
  const graph = await loadVersionGraph(dir, vocabulary);
  const walker = versionWalker(dir, rules, graph, vocabulary.relations);
  const combiner = servedCombiner(dir, walker, vocabulary.relations);
  return { ...(walker ? { walker } : {}), ...(combiner ? { combiner } : {}) };
}
