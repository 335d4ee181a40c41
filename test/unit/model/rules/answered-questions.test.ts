import type { Direction } from '../../../../src/direction';
import { AnsweredQuestions } from '../../../../src/model/rules/answered-questions';
import type { Evidence } from '../../../../src/model/rules/rule-evidence';
import type { EvidenceSource } from '../../../../src/model/rules/rule-walker';
import { WalkedEvidence } from '../../../../src/model/rules/walked-evidence';

/** A source whose question from entity x reaches x + 1 .. x + 5 (none from 0), counting walks. */
class CountingSource implements EvidenceSource {
  walks = 0;

  evidence(entity: number, relation: number, direction: Direction) {
    this.walks++;
    if (entity === 0) return undefined;
    const found = new Map<number, Evidence>();
    const sign = direction === 'tail' ? 1 : -1;
    for (let k = 1; k <= 5; k++) {
      found.set(entity + sign * k, { max: k / 10 + relation, noisyOr: k / 5, rules: k });
    }
    return WalkedEvidence.fromEntries(found);
  }
}

describe('AnsweredQuestions', () => {
  it('walks a question again only for answers not asked about before, and answers as the walk did', () => {
    const source = new CountingSource();
    const walks = new AnsweredQuestions(source);
    const first = walks.evidence(10, 1, 'tail', [11, 13, 40]);
    expect(source.walks).toBe(1);
    expect(first?.get(13)).toEqual({ max: 1.3, noisyOr: 0.6, rules: 3 });
    // The same answers, or some of them: remembered (an answer no rule reaches stays absent).
    const again = walks.evidence(10, 1, 'tail', [40, 13]);
    expect(source.walks).toBe(1);
    expect([...(again ?? [])]).toEqual([[13, { max: 1.3, noisyOr: 0.6, rules: 3 }]]);
    // Another answer: walked again, and remembered with the others.
    expect(walks.evidence(10, 1, 'tail', [15])?.get(15)?.rules).toBe(5);
    expect(source.walks).toBe(2);
    expect(walks.evidence(10, 1, 'tail', [11, 15])?.size).toBe(2);
    expect(source.walks).toBe(2);
    // Another direction or relation is another question.
    expect(walks.evidence(10, 1, 'head', [9])?.get(9)?.rules).toBe(1);
    expect(walks.evidence(10, 2, 'tail', [11])?.get(11)?.max).toBeCloseTo(2.1, 10);
    expect(source.walks).toBe(4);
  });

  it('remembers a question no walk can answer, and walks every time when not told the answers', () => {
    const source = new CountingSource();
    const walks = new AnsweredQuestions(source);
    expect(walks.evidence(0, 1, 'tail', [1])).toBeUndefined();
    expect(walks.evidence(0, 1, 'tail', [2])).toBeUndefined();
    expect(source.walks).toBe(1);
    expect(walks.evidence(10, 1, 'tail')?.size).toBe(5);
    expect(walks.evidence(10, 1, 'tail')?.size).toBe(5);
    expect(source.walks).toBe(3);
  });
});
