import type { Direction } from '../../direction';
import type { GraphIndex } from './graph-index';
import { relationWalks, ruleEvidence } from './rule-evidence';
import type { Evidence, RelationWalks, WalkRule } from './rule-evidence';
import type { RuleSet } from './rule-types';

/** Index entries one question's walks may take together when no combiner says otherwise. */
export const DEFAULT_WALK_BUDGET = 20_000;

/** The rules' evidence for the candidates of one question; undefined: no walk possible. */
export type QuestionEvidence = Map<number, Evidence> | undefined;

/**
 * A version's path rules (rules.json) walked in its graph (graph.bin): the evidence of the
 * candidates of any question, whatever the combiner does with it (the edge calibrator hears it
 * where the ranking does not).
 */
export class RuleWalker {
  private readonly walks: RelationWalks[];

  constructor(
    rules: RuleSet,
    readonly graph: GraphIndex,
    relations: readonly string[],
    readonly budget = DEFAULT_WALK_BUDGET,
  ) {
    this.walks = relationWalks(rules.rules, relations);
  }

  /** The rules of `relation` as walks in `direction`, best first (empty: none). */
  rulesFor(relation: number, direction: Direction): readonly WalkRule[] {
    const walks = this.walks[relation];
    if (!walks) return [];
    return direction === 'tail' ? walks.tail : walks.head;
  }

  /**
   * Every candidate some rule of `relation` reaches from `entity` in `direction` (tail: from the
   * query's head; head: from its tail), with the rules' confidences aggregated; undefined for an
   * entity the version's graph does not hold (folded in) or a relation without rules.
   */
  evidence(entity: number, relation: number, direction: Direction): QuestionEvidence {
    const rules = this.rulesFor(relation, direction);
    if (rules.length === 0 || entity >= this.graph.nodes) return undefined;
    return ruleEvidence(this.graph, entity, rules, this.budget);
  }
}

/** Where a question's evidence comes from: a walker, or what a request already walked. */
export interface EvidenceSource {
  /**
   * `answers`: the candidates the caller will look up, where it knows them (a source may
   * leave the others out of the map it returns).
   */
  evidence(
    entity: number,
    relation: number,
    direction: Direction,
    answers?: readonly number[],
  ): QuestionEvidence;
}

/** A walker that walks each question once (one request's questions). */
export class WalkedQuestions implements EvidenceSource {
  private readonly walked = new Map<string, QuestionEvidence>();

  constructor(private readonly walker: EvidenceSource) {}

  evidence(entity: number, relation: number, direction: Direction): QuestionEvidence {
    const key = `${entity}\t${relation}\t${direction}`;
    if (this.walked.has(key)) return this.walked.get(key);
    const found = this.walker.evidence(entity, relation, direction);
    this.walked.set(key, found);
    return found;
  }
}
