import type { Direction } from '../../direction';
import { readCombiner } from './combiner-file';
import type { CombinerFile } from './combiner-file';
import type { GraphIndex } from './graph-index';
import { settingFor } from './rule-combiner';
import type { CombinerSetting } from './rule-combiner';
import { relationWalks, ruleEvidence } from './rule-evidence';
import type { Evidence, RelationWalks } from './rule-evidence';
import type { RuleSet } from './rule-types';
import { readRules } from './rules-file';
import { loadVersionGraph } from './version-graph';

/**
 * A version's answers as model + rules: its combiner (combiner.json) applied with its rules
 * (rules.json) walked in its graph (graph.bin). The served logit of candidate y for the query
 * (x, r, direction) is the model's logit + w · evidence(y), w and the aggregate the combiner's
 * for (r, direction); 0 where no rule reaches y or w is 0.
 */
export class ServedCombiner {
  private readonly walks: RelationWalks[];

  constructor(
    readonly file: CombinerFile,
    rules: RuleSet,
    private readonly graph: GraphIndex,
    private readonly relations: readonly string[],
  ) {
    this.walks = relationWalks(rules.rules, relations);
  }

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
   */
  evidence(
    entity: number,
    relation: number,
    direction: Direction,
  ): { setting: CombinerSetting; found: Map<number, Evidence> } | undefined {
    const setting = this.setting(relation, direction);
    if (setting.w === 0 || entity >= this.graph.nodes) return undefined;
    const walks = this.walks[relation];
    if (!walks) return undefined;
    const rules = direction === 'tail' ? walks.tail : walks.head;
    return { setting, found: ruleEvidence(this.graph, entity, rules, this.file.walkBudget) };
  }
}

/** The served logit of a candidate with `evidence` under `setting`. */
export function combinedLogit(
  logit: number,
  setting: CombinerSetting,
  evidence: Evidence | undefined,
): number {
  return evidence === undefined ? logit : logit + setting.w * evidence[setting.aggregate];
}

/**
 * The version's served combiner: its combiner.json with its rules and graph, or undefined when
 * one of them is missing or the combiner leaves the model alone everywhere.
 */
export function servedCombiner(
  dir: string,
  rules: RuleSet | undefined,
  graph: GraphIndex | undefined,
  relations: readonly string[],
): ServedCombiner | undefined {
  if (!rules || !graph) return undefined;
  const file = readCombiner(dir);
  if (!file) return undefined;
  const combiner = new ServedCombiner(file, rules, graph, relations);
  return combiner.active ? combiner : undefined;
}

/**
 * The combiner a model directory serves with (rules.json, graph.bin and combiner.json read from
 * it), or undefined: calibration and evaluation score with it as serving does.
 */
export async function dirCombiner(
  dir: string,
  vocabulary: { entities: readonly string[]; relations: readonly string[] },
): Promise<ServedCombiner | undefined> {
  const rules = readRules(dir);
  if (!rules || !readCombiner(dir)) return undefined;
  const graph = await loadVersionGraph(dir, vocabulary);
  return servedCombiner(dir, rules, graph, vocabulary.relations);
}
