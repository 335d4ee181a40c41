import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventLoopTurns } from '../../../../src/event-loop-turns';
import { mineRules, readRules, RULES_FILE, writeRules } from '../../../../src/model/rules';
import type { MiningGraph, Rule } from '../../../../src/model/rules';

/** A graph from named triples (ids in first-seen order). */
function graphOf(triples: [string, string, string][]): MiningGraph {
  const entities = new Map<string, number>();
  const relations = new Map<string, number>();
  const id = (map: Map<string, number>, name: string) => {
    if (!map.has(name)) map.set(name, map.size);
    return map.get(name) as number;
  };
  const heads = new Int32Array(triples.length);
  const rels = new Int32Array(triples.length);
  const tails = new Int32Array(triples.length);
  triples.forEach(([h, r, t], i) => {
    heads[i] = id(entities, h);
    rels[i] = id(relations, r);
    tails[i] = id(entities, t);
  });
  return {
    entities: [...entities.keys()],
    relationNames: [...relations.keys()],
    heads,
    relations: rels,
    tails,
  };
}

/**
 * Five chains p -a-> q -b-> s; four of them closed by (p, c, s). By hand: a∘b ⇒ c has 5 body
 * pairs, 4 of them edges of c (support 4, confidence 0.8); c∘b⁻¹ ⇒ a and a⁻¹∘c ⇒ b have 4 body
 * pairs, all edges (support 4, confidence 1). Relation s is symmetric on 2 of 3 pairs:
 * s⁻¹ ⇒ s has 5 body pairs, 4 of them edges (support 4, confidence 0.8).
 */
function planted(): MiningGraph {
  const triples: [string, string, string][] = [];
  for (let i = 0; i < 5; i++) {
    triples.push([`p${i}`, 'a', `q${i}`], [`q${i}`, 'b', `s${i}`]);
    if (i < 4) triples.push([`p${i}`, 'c', `s${i}`]);
  }
  triples.push(['u1', 's', 'u2'], ['u2', 's', 'u1'], ['u3', 's', 'u4'], ['u4', 's', 'u3']);
  triples.push(['u5', 's', 'u6']);
  return graphOf(triples);
}

const text = (rule: Rule) =>
  rule.body.map((atom) => `${atom.relation}${atom.inverse ? '^-1' : ''}`).join(' . ');

describe('mineRules', () => {
  it('finds the planted rules with the support and confidence counted by hand', async () => {
    const set = await mineRules(planted());
    const c = set.rules.c ?? [];
    expect(c.map(text)).toContain('a . b');
    const ab = c.find((rule) => text(rule) === 'a . b') as Rule;
    expect(ab.support).toBe(4);
    expect(ab.confidence).toBeCloseTo(0.8, 10);
    expect(ab.headCoverage).toBe(1);
    const a = (set.rules.a ?? []).find((rule) => text(rule) === 'c . b^-1') as Rule;
    expect(a).toMatchObject({ support: 4, confidence: 1 });
    expect(a.headCoverage).toBeCloseTo(0.8, 10);
    const b = (set.rules.b ?? []).find((rule) => text(rule) === 'a^-1 . c') as Rule;
    expect(b).toMatchObject({ support: 4, confidence: 1 });
    const s = (set.rules.s ?? []).find((rule) => text(rule) === 's^-1') as Rule;
    expect(s.support).toBe(4);
    expect(s.confidence).toBeCloseTo(0.8, 10);
  });

  it('never proposes a relation as its own reason, and sorts by confidence', async () => {
    const set = await mineRules(planted());
    for (const [name, rules] of Object.entries(set.rules)) {
      expect(rules.map(text)).not.toContain(name);
      const confidences = rules.map((rule) => rule.confidence);
      expect(confidences).toEqual([...confidences].sort((x, y) => y - x));
    }
  });

  it('applies the support and confidence floors and the per-relation cap', async () => {
    const strict = await mineRules(planted(), { minSupport: 5 });
    expect(strict.rules).toEqual({});
    const confident = await mineRules(planted(), { minConfidence: 0.9 });
    expect(confident.rules.c ?? []).toEqual([]);
    expect((confident.rules.a ?? []).length).toBeGreaterThan(0);
    const one = await mineRules(planted(), { rulesPerRelation: 1 });
    for (const rules of Object.values(one.rules)) expect(rules).toHaveLength(1);
  });

  it('mines only bodies up to maxLength', async () => {
    const short = await mineRules(planted(), { maxLength: 1 });
    const lengths = Object.values(short.rules).flatMap((rules) => rules.map((r) => r.body.length));
    expect(lengths.length).toBeGreaterThan(0);
    expect(Math.max(...lengths)).toBe(1);
  });

  it('finds length-3 rules through distinct nodes only', async () => {
    const triples: [string, string, string][] = [];
    for (let i = 0; i < 4; i++) {
      triples.push([`x${i}`, 'r1', `m${i}`], [`n${i}`, 'r2', `m${i}`], [`n${i}`, 'r3', `y${i}`]);
      triples.push([`x${i}`, 'r', `y${i}`]);
    }
    const set = await mineRules(graphOf(triples));
    const rule = (set.rules.r ?? []).find((r) => text(r) === 'r1 . r2^-1 . r3') as Rule;
    expect(rule).toMatchObject({ support: 4, confidence: 1 });
    // A walk that doubles back (x -r1-> m -r1^-1-> x ...) is not a path: no such body.
    const all = Object.values(set.rules).flat().map(text);
    expect(all).not.toContain('r1 . r1^-1 . r');
  });

  it('samples with its seed: the same seed gives the same rules on a big graph', async () => {
    const triples: [string, string, string][] = [];
    for (let i = 0; i < 400; i++) {
      triples.push([`p${i}`, 'a', `q${i % 50}`], [`q${i % 50}`, 'b', `s${i % 7}`]);
      if (i % 3 !== 0) triples.push([`p${i}`, 'c', `s${i % 7}`]);
    }
    const settings = { factsPerRelation: 20, bodySamples: 10, seed: 3 };
    const first = await mineRules(graphOf(triples), settings);
    const again = await mineRules(graphOf(triples), settings);
    expect(again.rules).toEqual(first.rules);
    expect((first.rules.c ?? []).map(text)).toContain('a . b');
  });

  it('gives the event loop turns while it works', async () => {
    let turns = 0;
    const counting = new EventLoopTurns(0);
    const original = counting.turn.bind(counting);
    counting.turn = async () => {
      turns++;
      await original();
    };
    await mineRules(planted(), {}, counting);
    expect(turns).toBeGreaterThan(3);
  });
});

describe('rules.json', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-rules-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('round-trips, is absent for older versions, and a corrupt file is refused by name', async () => {
    expect(readRules(dir)).toBeUndefined();
    const set = await mineRules(planted());
    writeRules(dir, set);
    expect(readRules(dir)).toEqual(set);
    fs.writeFileSync(
      path.join(dir, RULES_FILE),
      '{"format": 1, "rules": {"c": [{"relation": "c"}]}}',
    );
    expect(() => readRules(dir)).toThrow(/rules.json .* not a rule set/);
    fs.writeFileSync(path.join(dir, RULES_FILE), '{');
    expect(() => readRules(dir)).toThrow(expect.objectContaining({ code: 'MODEL_INVALID' }));
  });
});
