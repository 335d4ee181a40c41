import type { Direction } from '../../direction';
import type { Evidence } from './rule-evidence';
import type { EvidenceSource, QuestionEvidence } from './rule-walker';
import { WalkedEvidence } from './walked-evidence';

/**
 * A source that remembers, of each question it walks, the evidence of the answers its callers
 * asked about (not of every entity reached: a calibration's tens of thousands of questions
 * would not fit), so that several passes over one set of edges (its served logits, then the
 * edge calibrator's features of both questions) walk a question once as long as they ask about
 * answers asked before. Without `answers`, every call walks.
 */
export class AnsweredQuestions implements EvidenceSource {
  /** Question -> the evidence of each answer asked about (undefined: no rule reaches it); null: no walk possible. */
  private readonly asked = new Map<string, Map<number, Evidence | undefined> | null>();

  constructor(private readonly source: EvidenceSource) {}

  evidence(
    entity: number,
    relation: number,
    direction: Direction,
    answers?: readonly number[],
  ): QuestionEvidence {
    if (!answers) return this.source.evidence(entity, relation, direction);
    const key = `${entity}\t${relation}\t${direction}`;
    const seen = this.asked.get(key);
    if (seen === null) return undefined;
    if (seen && answers.every((a) => seen.has(a))) {
      const found: [number, Evidence][] = [];
      for (const a of answers) {
        const evidence = seen.get(a);
        if (evidence) found.push([a, evidence]);
      }
      return WalkedEvidence.fromEntries(found);
    }
    const found = this.source.evidence(entity, relation, direction);
    if (!found) {
      this.asked.set(key, null);
      return undefined;
    }
    const kept = seen ?? new Map<number, Evidence | undefined>();
    for (const a of answers) kept.set(a, found.get(a));
    this.asked.set(key, kept);
    return found;
  }
}
