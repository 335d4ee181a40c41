import type { Direction } from '../../direction';
import { mapEngineError, nativeEngine } from '../native-engine';
import type { Native } from '../native-engine';
import type { GraphIndex } from './graph-index';
import { relationWalks } from './rule-evidence';
import type { RelationWalks, WalkRule } from './rule-evidence';
import type { RuleSet } from './rule-types';
import { batchSlice, WalkedEvidence } from './walked-evidence';

/** Index entries one question's walks may take together when no combiner says otherwise. */
export const DEFAULT_WALK_BUDGET = 20_000;

/** The rules' evidence for the candidates of one question; undefined: no walk possible. */
export type QuestionEvidence = WalkedEvidence | undefined;

/** A question a batch walks. */
export interface WalkQuestion {
  entity: number;
  relation: number;
  direction: Direction;
}

/** The engine's id of a relation's rules in one direction. */
function ruleSetId(relation: number, direction: Direction): number {
  return 2 * relation + (direction === 'head' ? 1 : 0);
}

/** The graph and the walks as the engine holds them (`RuleWalks`), rule set `ruleSetId`. */
function engineWalks(graph: GraphIndex, walks: readonly RelationWalks[]): Native.RuleWalks {
  const sets = walks.flatMap((w) => [w.tail, w.head]);
  const rules = sets.flat();
  const setOffsets = new Uint32Array(sets.length + 1);
  sets.forEach((set, s) => (setOffsets[s + 1] = (setOffsets[s] as number) + set.length));
  const stepOffsets = new Uint32Array(rules.length + 1);
  rules.forEach((rule, i) => (stepOffsets[i + 1] = (stepOffsets[i] as number) + rule.steps.length));
  try {
    return new (nativeEngine().RuleWalks)(graph.offsets, graph.step, graph.neighbour, graph.steps, {
      setOffsets,
      stepOffsets,
      steps: Uint32Array.from(rules.flatMap((rule) => rule.steps)),
      confidences: Float64Array.from(rules, (rule) => rule.confidence),
    });
  } catch (error) {
    throw mapEngineError(error);
  }
}

/** The budget as the engine counts it: whole entries (a walk takes one while any is left). */
function entries(budget: number): number {
  return Math.min(Math.ceil(budget), 0xffffffff);
}

/**
 * A version's path rules (rules.json) walked in its graph (graph.bin): the evidence of the
 * candidates of any question, whatever the combiner does with it (the edge calibrator hears it
 * where the ranking does not).
 */
export class RuleWalker {
  private readonly walks: RelationWalks[];
  private readonly engine: Native.RuleWalks;

  constructor(
    rules: RuleSet,
    readonly graph: GraphIndex,
    relations: readonly string[],
    readonly budget = DEFAULT_WALK_BUDGET,
  ) {
    this.walks = relationWalks(rules.rules, relations);
    this.engine = engineWalks(graph, this.walks);
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
    if (!this.hasWalks(entity, relation, direction)) return undefined;
    try {
      const walked = this.engine.evidence(
        entity,
        ruleSetId(relation, direction),
        entries(this.budget),
      );
      return new WalkedEvidence(walked);
    } catch (error) {
      throw mapEngineError(error);
    }
  }

  /** `evidence` of each question, walked on the engine's worker threads. */
  async evidenceBatch(questions: readonly WalkQuestion[]): Promise<QuestionEvidence[]> {
    const walked = questions.filter((q) => this.hasWalks(q.entity, q.relation, q.direction));
    let batch: Native.WalkedBatch;
    try {
      batch = await this.engine.evidenceBatchAsync(
        Uint32Array.from(walked, (q) => q.entity),
        Uint32Array.from(walked, (q) => ruleSetId(q.relation, q.direction)),
        entries(this.budget),
      );
    } catch (error) {
      throw mapEngineError(error);
    }
    let next = 0;
    return questions.map((q) =>
      this.hasWalks(q.entity, q.relation, q.direction) ? batchSlice(batch, next++) : undefined,
    );
  }

  /** Whether the question has rules to walk from an entity of the version's graph. */
  private hasWalks(entity: number, relation: number, direction: Direction): boolean {
    return this.rulesFor(relation, direction).length > 0 && entity < this.graph.nodes;
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

/** A source that can also walk many questions at once, off the JS thread. */
export interface BatchEvidenceSource extends EvidenceSource {
  evidenceBatch(questions: readonly WalkQuestion[]): Promise<QuestionEvidence[]>;
}

/** A walker that walks each question once (one request's questions). */
export class WalkedQuestions implements EvidenceSource {
  private readonly walked = new Map<string, QuestionEvidence>();

  constructor(private readonly walker: BatchEvidenceSource) {}

  private static key(entity: number, relation: number, direction: Direction): string {
    return `${entity}\t${relation}\t${direction}`;
  }

  evidence(entity: number, relation: number, direction: Direction): QuestionEvidence {
    const key = WalkedQuestions.key(entity, relation, direction);
    if (this.walked.has(key)) return this.walked.get(key);
    const found = this.walker.evidence(entity, relation, direction);
    this.walked.set(key, found);
    return found;
  }

  /** Walks the questions not walked yet in one batch on the engine's worker threads. */
  async walkAll(questions: readonly WalkQuestion[]): Promise<void> {
    const fresh = new Map<string, WalkQuestion>();
    for (const q of questions) {
      const key = WalkedQuestions.key(q.entity, q.relation, q.direction);
      if (!this.walked.has(key)) fresh.set(key, q);
    }
    const found = await this.walker.evidenceBatch([...fresh.values()]);
    [...fresh.keys()].forEach((key, i) => this.walked.set(key, found[i]));
  }
}
