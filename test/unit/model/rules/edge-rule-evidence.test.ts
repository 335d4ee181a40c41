import { EventLoopTurns } from '../../../../src/event-loop-turns';
import { edgeRuleEvidence } from '../../../../src/model/rules/edge-rule-evidence';
import { GraphIndex } from '../../../../src/model/rules/graph-index';
import { relationWalks, ruleEvidence } from '../../../../src/model/rules/rule-evidence';
import { RuleWalker, WalkedQuestions } from '../../../../src/model/rules/rule-walker';
import type { EvidenceSource } from '../../../../src/model/rules/rule-walker';
import type { Rule, RuleSet } from '../../../../src/model/rules/rule-types';
import { seededRandom } from '../../../../src/seeded-random';

const RELATIONS = ['a', 'b', 'c'];

function rule(relation: string, body: [string, boolean][], confidence: number): Rule {
  return {
    relation,
    body: body.map(([r, inverse]) => ({ relation: r, inverse })),
    support: 10,
    confidence,
    headCoverage: 0.5,
  };
}

const RULES = {
  rules: {
    a: [
      rule('a', [['b', false]], 0.9),
      rule(
        'a',
        [
          ['b', true],
          ['c', false],
        ],
        0.4,
      ),
    ],
    b: [
      rule(
        'b',
        [
          ['a', false],
          ['a', true],
        ],
        0.6,
      ),
    ],
  },
} as unknown as RuleSet;

async function randomGraph(nodes: number, edges: number): Promise<GraphIndex> {
  const random = seededRandom(7);
  const pick = (n: number) => Int32Array.from({ length: edges }, () => Math.floor(random() * n));
  return GraphIndex.build(nodes, 3, pick(nodes), pick(3), pick(nodes), new EventLoopTurns());
}

describe('the rules’ evidence for edges, both questions', () => {
  it('is the best confidence of the rules reaching each end from the other, each question walked once', async () => {
    const nodes = 30;
    const graph = await randomGraph(nodes, 150);
    const walker = new RuleWalker(RULES, graph, RELATIONS, 1_000);
    const walks = relationWalks(RULES.rules, RELATIONS);
    const asked: string[] = [];
    const counting: EvidenceSource = {
      evidence: (e, r, d) => {
        asked.push(`${e} ${r} ${d}`);
        return walker.evidence(e, r, d);
      },
    };
    const random = seededRandom(9);
    const n = 400;
    const heads = Uint32Array.from({ length: n }, () => Math.floor(random() * nodes));
    const relations = Uint32Array.from({ length: n }, () => Math.floor(random() * 3));
    const tails = Uint32Array.from({ length: n }, () => Math.floor(random() * nodes));
    const evidence = await edgeRuleEvidence(counting, heads, relations, tails);
    let fired = 0;
    for (let i = 0; i < n; i++) {
      const [h, r, t] = [heads[i]!, relations[i]!, tails[i]!];
      const expected = (from: number, to: number, rules: (typeof walks)[0]['tail']) =>
        rules.length === 0 ? 0 : (ruleEvidence(graph, from, rules, 1_000).get(to)?.max ?? 0);
      expect(evidence.tail[i]).toBeCloseTo(expected(h, t, walks[r]!.tail), 6);
      expect(evidence.head[i]).toBeCloseTo(expected(t, h, walks[r]!.head), 6);
      if (evidence.tail[i]! > 0 || evidence.head[i]! > 0) fired++;
    }
    expect(fired).toBeGreaterThan(10);
    expect(new Set(asked).size).toBe(asked.length);
  });

  it('answers nothing for an entity outside the version’s graph (folded in) or a relation without rules', async () => {
    const graph = await randomGraph(10, 40);
    const walker = new RuleWalker(RULES, graph, RELATIONS);
    expect(walker.evidence(12, 0, 'tail')).toBeUndefined();
    expect(walker.evidence(3, 2, 'head')).toBeUndefined();
    const evidence = await edgeRuleEvidence(walker, [12], [0], [3]);
    expect(Array.from(evidence.tail)).toEqual([0]);
  });

  it('walks a question once for a request however often it is asked', async () => {
    const graph = await randomGraph(10, 40);
    const walker = new RuleWalker(RULES, graph, RELATIONS);
    let walks = 0;
    const walked = new WalkedQuestions({
      evidence: (e, r, d) => {
        walks++;
        return walker.evidence(e, r, d);
      },
      evidenceBatch: (questions) => {
        walks += questions.length;
        return walker.evidenceBatch(questions);
      },
    });
    const first = walked.evidence(1, 0, 'tail');
    expect(walked.evidence(1, 0, 'tail')).toBe(first);
    walked.evidence(1, 0, 'head');
    expect(walks).toBe(2);
    // A batch walks only the questions not walked yet (each once), and they are not walked again.
    await walked.walkAll([
      { entity: 1, relation: 0, direction: 'tail' },
      { entity: 2, relation: 0, direction: 'tail' },
      { entity: 2, relation: 0, direction: 'tail' },
      { entity: 3, relation: 0, direction: 'head' },
    ]);
    expect(walks).toBe(4);
    expect([...(walked.evidence(2, 0, 'tail') ?? [])]).toEqual([
      ...(walker.evidence(2, 0, 'tail') ?? []),
    ]);
    walked.evidence(3, 0, 'head');
    expect(walks).toBe(4);
  });
});
