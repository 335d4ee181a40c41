import type { Direction } from '../direction';
import type { TripleScorer } from './calibration/calibrate-model';
import { rowsByQuestion } from './rules/edge-rule-evidence';
import { combinedLogit } from './rules/served-combiner';
import type { ServedCombiner } from './rules/served-combiner';
import type { EvidenceSource } from './rules/rule-walker';

/**
 * `scorer` whose logits are the served ones: the model's plus the rules' evidence where the
 * version's combiner adds it. Calibration fits on these, so probabilities match what serving
 * ranks by. Each (entity, relation) query's rules are walked once per call, from `source`
 * (default: the combiner's walker; an `AnsweredQuestions` shares walks across calls).
 */
export function withRuleEvidence(
  scorer: TripleScorer,
  combiner: ServedCombiner,
  source: EvidenceSource = combiner.walker,
): TripleScorer {
  return {
    relations: scorer.relations,
    entities: scorer.entities,
    scoreTriples(h: Uint32Array, r: Uint32Array, t: Uint32Array, d: Direction): Float32Array {
      const logits = scorer.scoreTriples(h, r, t, d);
      const [from, to] = d === 'tail' ? [h, t] : [t, h];
      for (const rows of rowsByQuestion(from, r)) {
        const first = rows[0] as number;
        const evidence = combiner.evidence(
          from[first] as number,
          r[first] as number,
          d,
          source,
          rows.map((i) => to[i] as number),
        );
        if (!evidence) continue;
        for (const i of rows) {
          const found = evidence.found.get(to[i] as number);
          logits[i] = combinedLogit(logits[i] as number, evidence.setting, found);
        }
      }
      return logits;
    },
  };
}
