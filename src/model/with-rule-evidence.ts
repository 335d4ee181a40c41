import type { Direction } from '../direction';
import type { TripleScorer } from './calibration/calibrate-model';
import { combinedLogit } from './rules/served-combiner';
import type { ServedCombiner } from './rules/served-combiner';

/**
 * `scorer` whose logits are the served ones: the model's plus the rules' evidence where the
 * version's combiner adds it. Calibration fits on these, so probabilities match what serving
 * ranks by. Each (entity, relation) query's rules are walked once per call.
 */
export function withRuleEvidence(scorer: TripleScorer, combiner: ServedCombiner): TripleScorer {
  return {
    relations: scorer.relations,
    entities: scorer.entities,
    scoreTriples(h: Uint32Array, r: Uint32Array, t: Uint32Array, d: Direction): Float32Array {
      const logits = scorer.scoreTriples(h, r, t, d);
      const [from, to] = d === 'tail' ? [h, t] : [t, h];
      const byQuery = new Map<string, number[]>();
      for (let i = 0; i < logits.length; i++) {
        const key = `${from[i]}\t${r[i]}`;
        const rows = byQuery.get(key);
        if (rows) rows.push(i);
        else byQuery.set(key, [i]);
      }
      for (const rows of byQuery.values()) {
        const first = rows[0] as number;
        const evidence = combiner.evidence(from[first] as number, r[first] as number, d);
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
