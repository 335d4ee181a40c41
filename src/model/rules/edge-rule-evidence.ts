import { EventLoopTurns } from '../../event-loop-turns';
import type { EvidenceSource } from './rule-walker';

/** The rows of each distinct question (`from[i]`, `relations[i]`), in order of first asking. */
export function rowsByQuestion(
  from: ArrayLike<number>,
  relations: ArrayLike<number>,
): Iterable<number[]> {
  const byQuestion = new Map<string, number[]>();
  for (let i = 0; i < from.length; i++) {
    const key = `${from[i]}\t${relations[i]}`;
    const rows = byQuestion.get(key);
    if (rows) rows.push(i);
    else byQuestion.set(key, [i]);
  }
  return byQuestion.values();
}

/** Per edge, the best confidence of the rules that reach its answer in each question (0: none). */
export interface EdgeRuleEvidence {
  /** (h, r, ?) reaching t. */
  tail: Float32Array;
  /** (?, r, t) reaching h. */
  head: Float32Array;
}

/**
 * The rules' evidence for edges (h, r, t) in both questions: each distinct question is walked
 * once (edges sharing a head and relation share the tail question's walk), giving the event
 * loop a turn between walks when `turns` says so (a request of a thousand edges walks up to two
 * thousand questions).
 */
export async function edgeRuleEvidence(
  source: EvidenceSource,
  heads: ArrayLike<number>,
  relations: ArrayLike<number>,
  tails: ArrayLike<number>,
  turns = new EventLoopTurns(),
): Promise<EdgeRuleEvidence> {
  const n = heads.length;
  const out: EdgeRuleEvidence = { tail: new Float32Array(n), head: new Float32Array(n) };
  for (const [direction, from, to] of [
    ['tail', heads, tails],
    ['head', tails, heads],
  ] as const) {
    for (const rows of rowsByQuestion(from, relations)) {
      const first = rows[0] as number;
      const found = source.evidence(
        from[first] as number,
        relations[first] as number,
        direction,
        rows.map((i) => to[i] as number),
      );
      if (found) for (const i of rows) out[direction][i] = found.get(to[i] as number)?.max ?? 0;
      await turns.maybeTurn();
    }
  }
  return out;
}
