import { EventLoopTurns } from '../../../../src/event-loop-turns';
import { GraphIndex } from '../../../../src/model/rules/graph-index';
import { relationWalks, ruleEvidence } from '../../../../src/model/rules/rule-evidence';
import { nativeEngine } from '../../../../src/model/native-engine';
import { RuleWalker } from '../../../../src/model/rules/rule-walker';
import type { Rule, RuleSet } from '../../../../src/model/rules/rule-types';
import { seededRandom } from '../../../../src/seeded-random';

const RELATIONS = ['a', 'b', 'c'];

/** A random graph with a hub (node 0) and random rules of 1 to 3 steps per relation. */
async function randomCase(seed: number) {
  const random = seededRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const nodes = 40;
  const heads: number[] = [];
  const rels: number[] = [];
  const tails: number[] = [];
  for (let i = 0; i < 300; i++) {
    const hub = random() < 0.3;
    heads.push(hub ? 0 : pick(nodes));
    rels.push(pick(RELATIONS.length));
    tails.push(pick(nodes));
  }
  const graph = await GraphIndex.build(
    nodes,
    RELATIONS.length,
    Int32Array.from(heads),
    Int32Array.from(rels),
    Int32Array.from(tails),
    new EventLoopTurns(),
  );
  const rules: Record<string, Rule[]> = {};
  for (const head of RELATIONS) {
    rules[head] = Array.from({ length: 1 + pick(5) }, () => ({
      relation: head,
      body: Array.from({ length: 1 + pick(3) }, () => ({
        relation: RELATIONS[pick(RELATIONS.length)] as string,
        inverse: random() < 0.5,
      })),
      confidence: Math.round(random() * 1000) / 1000,
      support: 1,
      headCoverage: 1,
    }));
  }
  const set = { format: 1, settings: {}, seconds: 0, rules } as unknown as RuleSet;
  return { nodes, graph, rules: set };
}

describe('RuleWalker (the engine walks)', () => {
  it.each([1, 2, 3])(
    'reaches what the TypeScript walk reaches, in its order, with the same evidence to the bit (seed %i)',
    async (seed) => {
      const { nodes, graph, rules } = await randomCase(seed);
      const walks = relationWalks(rules.rules, RELATIONS);
      for (const budget of [5, 40, 20_000]) {
        const walker = new RuleWalker(rules, graph, RELATIONS, budget);
        const questions = [];
        for (let x = 0; x < nodes; x++) {
          for (let r = 0; r < RELATIONS.length; r++) {
            for (const direction of ['tail', 'head'] as const) {
              questions.push({ entity: x, relation: r, direction });
            }
          }
        }
        const batch = await walker.evidenceBatch(questions);
        questions.forEach((q, i) => {
          const own = walks[q.relation] as { tail: never[]; head: never[] };
          const expected = ruleEvidence(graph, q.entity, own[q.direction], budget);
          for (const found of [walker.evidence(q.entity, q.relation, q.direction), batch[i]]) {
            expect(found).toBeDefined();
            expect([...(found ?? [])]).toEqual([...expected]);
            expect(found?.size).toBe(expected.size);
            for (let y = -1; y <= nodes; y++) {
              expect(found?.get(y)).toEqual(expected.get(y));
              expect(found?.has(y)).toBe(expected.has(y));
            }
          }
        });
      }
    },
  );

  it('walks nothing from an entity past its graph (folded in) or for a relation without rules', async () => {
    const { nodes, graph, rules } = await randomCase(4);
    const walker = new RuleWalker(
      { ...rules, rules: { a: rules.rules.a as Rule[] } },
      graph,
      RELATIONS,
    );
    expect(walker.evidence(nodes, 0, 'tail')).toBeUndefined();
    expect(walker.evidence(1, 1, 'tail')).toBeUndefined();
    const batch = await walker.evidenceBatch([
      { entity: nodes + 3, relation: 0, direction: 'head' },
      { entity: 1, relation: 0, direction: 'tail' },
      { entity: 1, relation: 2, direction: 'head' },
    ]);
    expect(batch[0]).toBeUndefined();
    expect(batch[1]?.size).toBe(walker.evidence(1, 0, 'tail')?.size);
    expect(batch[2]).toBeUndefined();
  });
});

describe('RuleWalks (the binding)', () => {
  const engine = nativeEngine();
  const rules = (steps: number[], stepOffsets = [0, steps.length]) => ({
    setOffsets: Uint32Array.from([0, 1]),
    stepOffsets: Uint32Array.from(stepOffsets),
    steps: Uint32Array.from(steps),
    confidences: Float64Array.from([0.5]),
  });
  // Two nodes, one edge (0, r0, 1): entries 0 -> 1 by step 0 and 1 -> 0 by step 1.
  const csr = [Int32Array.from([0, 1, 2]), Int32Array.from([0, 1]), Int32Array.from([1, 0])];
  const construct = (ruleSets: ReturnType<typeof rules>, neighbour = csr[2] as Int32Array) =>
    new engine.RuleWalks(csr[0] as Int32Array, csr[1] as Int32Array, neighbour, 2, ruleSets);

  it('walks a valid graph', () => {
    const walked = construct(rules([0])).evidence(0, 0, 10);
    expect(Array.from(walked.candidates)).toEqual([1]);
    expect(Array.from(walked.max)).toEqual([0.5]);
  });

  it('refuses arrays that do not fit together, naming what is wrong', () => {
    const refused = (f: () => unknown, code: string, message: RegExp) => {
      expect(f).toThrow(message);
      try {
        f();
      } catch (error) {
        expect((error as { code?: string }).code).toBe(code);
      }
    };
    refused(() => construct(rules([0, 0, 0, 0])), 'ENGINE_ARGUMENT', /rule 0 must have 1 to 3/);
    refused(() => construct(rules([2])), 'ENGINE_ARGUMENT', /rule 0's step 2 is past 2/);
    refused(() => construct(rules([0], [0, 2])), 'ENGINE_ARGUMENT', /stepOffsets/);
    refused(
      () => construct(rules([0]), Int32Array.from([1, 5])),
      'ENGINE_DATASET',
      /entry 1's neighbour is past 2/,
    );
    refused(() => construct(rules([0])).evidence(0, 7, 10), 'ENGINE_ARGUMENT', /no rule set 7/);
  });
});
