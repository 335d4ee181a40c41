import { EventLoopTurns } from '../../../../src/event-loop-turns';
import { GraphIndex } from '../../../../src/model/rules/graph-index';
import {
  relationWalks,
  reversedRule,
  ruleEvidence,
  walkRule,
} from '../../../../src/model/rules/rule-evidence';
import { seededRandom } from '../../../../src/seeded-random';

type Triple = [number, number, number];

async function indexOf(nodes: number, relations: number, triples: Triple[]): Promise<GraphIndex> {
  return GraphIndex.build(
    nodes,
    relations,
    Int32Array.from(triples, (t) => t[0]),
    Int32Array.from(triples, (t) => t[1]),
    Int32Array.from(triples, (t) => t[2]),
    new EventLoopTurns(),
  );
}

/** Whether a walks to b by step (2r: edge (a, r, b); 2r + 1: edge (b, r, a)). */
function joined(triples: Triple[], a: number, step: number, b: number): boolean {
  const r = step >> 1;
  return triples.some(
    ([h, rel, t]) => rel === r && (step & 1 ? h === b && t === a : h === a && t === b),
  );
}

/** The ends of the body's paths from x through distinct nodes, by enumerating node tuples. */
function bruteEnds(nodes: number, triples: Triple[], x: number, steps: number[]): number[] {
  const ends = new Set<number>();
  const extend = (path: number[]) => {
    if (path.length === steps.length + 1) {
      ends.add(path[path.length - 1] as number);
      return;
    }
    const from = path[path.length - 1] as number;
    for (let z = 0; z < nodes; z++) {
      if (!path.includes(z) && joined(triples, from, steps[path.length - 1] as number, z)) {
        extend([...path, z]);
      }
    }
  };
  extend([x]);
  return [...ends].sort((a, b) => a - b);
}

describe('rule evidence', () => {
  it('walks every body of 1 to 3 steps to the ends of its paths through distinct nodes', async () => {
    const random = seededRandom(3);
    const nodes = 12;
    const triples: Triple[] = [];
    for (let i = 0; i < 60; i++) {
      triples.push([
        Math.floor(random() * nodes),
        Math.floor(random() * 3),
        Math.floor(random() * nodes),
      ]);
    }
    const index = await indexOf(nodes, 3, triples);
    let compared = 0;
    for (let trial = 0; trial < 200; trial++) {
      const length = 1 + (trial % 3);
      const steps = Array.from({ length }, () => Math.floor(random() * 6));
      const x = Math.floor(random() * nodes);
      const ends: number[] = [];
      const left = walkRule(index, x, steps, 1e9, (y) => ends.push(y));
      expect(left).toBeGreaterThan(0);
      expect(ends.sort((a, b) => a - b)).toEqual(bruteEnds(nodes, triples, x, steps));
      compared += ends.length;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('stops a walk at its budget and says so', async () => {
    const hub: Triple[] = Array.from({ length: 50 }, (_, i) => [0, 0, i + 1]);
    const index = await indexOf(51, 1, hub);
    const ends: number[] = [];
    expect(walkRule(index, 0, [0], 10, (y) => ends.push(y))).toBeLessThanOrEqual(0);
    expect(ends).toHaveLength(10);
  });

  it('stops a walk that has reached every node its last step leads to, leaving the budget to the next rule', async () => {
    // 0 -p-> 1..40, each -q-> 41 or 42 (q leads nowhere else); 0 -s-> 43.
    const triples: Triple[] = [];
    for (let z = 1; z <= 40; z++) triples.push([0, 0, z], [z, 1, 41 + (z % 2)]);
    triples.push([0, 2, 43]);
    const index = await indexOf(44, 3, triples);
    expect(index.endsOf(2)).toBe(2);
    const ends: number[] = [];
    const left = walkRule(index, 0, [0, 2], 20, (y) => ends.push(y));
    expect(ends.sort()).toEqual([41, 42]);
    expect(left).toBe(20 - 4);
    // p∘q (.5) then s (.2) with 20 entries: s is walked with the 16 p∘q left.
    const found = ruleEvidence(
      index,
      0,
      [
        { steps: [0, 2], confidence: 0.5 },
        { steps: [4], confidence: 0.2 },
      ],
      20,
    );
    expect([...found.keys()].sort()).toEqual([41, 42, 43]);
    // A last step that leads to x itself: x is never an end, so one fewer is looked for.
    // 0 -p-> 1 -q-> {0, 2}, 0 -p-> 3 -q-> 2: done once 2 is reached through 1.
    const back = await indexOf(4, 2, [
      [0, 0, 1],
      [1, 1, 0],
      [1, 1, 2],
      [0, 0, 3],
      [3, 1, 2],
    ]);
    const fromZero: number[] = [];
    expect(walkRule(back, 0, [0, 2], 100, (y) => fromZero.push(y))).toBe(100 - 3);
    expect(fromZero).toEqual([2]);
  });

  it('aggregates the rules that reach a candidate: max and noisy-or of their confidences', async () => {
    // 0 -p-> 1 -q-> 2, 0 -s-> 2, 0 -s-> 3: rules p∘q ⇒ r (.5) and s ⇒ r (.2)
    const index = await indexOf(4, 4, [
      [0, 0, 1],
      [1, 1, 2],
      [0, 2, 2],
      [0, 2, 3],
    ]);
    const rules = [
      { steps: [0, 2], confidence: 0.5 },
      { steps: [4], confidence: 0.2 },
    ];
    const found = ruleEvidence(index, 0, rules, 1000);
    expect([...found.keys()].sort()).toEqual([2, 3]);
    expect(found.get(2)?.max).toBeCloseTo(0.5);
    expect(found.get(2)?.noisyOr).toBeCloseTo(1 - 0.5 * 0.8);
    expect(found.get(2)?.rules).toBe(2);
    expect(found.get(3)).toEqual({ max: 0.2, noisyOr: 0.2, rules: 1 });
    // The head query (?, r, 2) walks the bodies backwards from 2 and reaches 0.
    const back = ruleEvidence(index, 2, rules.map(reversedRule), 1000);
    expect([...back.keys()]).toEqual([0]);
    expect(back.get(0)?.noisyOr).toBeCloseTo(0.6);
  });

  it('turns named rules into walks by relation id, leaving out rules over unknown relations', () => {
    const rule = (relation: string, body: [string, boolean][], confidence: number) => ({
      relation,
      body: body.map(([r, inverse]) => ({ relation: r, inverse })),
      support: 2,
      confidence,
      headCoverage: 0.1,
    });
    const walks = relationWalks(
      {
        likes: [
          rule(
            'likes',
            [
              ['knows', false],
              ['likes', true],
            ],
            0.4,
          ),
          rule('likes', [['gone', false]], 0.9),
        ],
      },
      ['knows', 'likes'],
    );
    expect(walks[0]).toEqual({ tail: [], head: [] });
    expect(walks[1]?.tail).toEqual([{ steps: [0, 3], confidence: 0.4 }]);
    expect(walks[1]?.head).toEqual([{ steps: [2, 1], confidence: 0.4 }]);
  });
});
