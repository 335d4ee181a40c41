import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  loadServingModel,
  resolveTrainingConfig,
  suggestionExclusions,
  suggestRelation,
  train,
} from '../../../../src/model';
import type { ServingModel } from '../../../../src/model';
import { mineRules, writeRules, writeVersionGraph } from '../../../../src/model/rules';
import { writeCombiner } from '../../../../src/model/rules/combiner-file';
import type { CombinerFile } from '../../../../src/model/rules/combiner-file';
import type { CombinerSetting } from '../../../../src/model/rules/rule-combiner';
import { ExcludedPairs } from '../../../../src/model/suggestions/excluded-pairs';
import { classGraph } from '../../../support/generated-graph';
import { TINY } from '../../../support/lifecycle';
import { servedLogits } from '../../../support/served-logits';

jest.setTimeout(120_000);

describe('suggestions across the graph by the served logit', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-served-suggestions-'));
  const relationNames = ['is_a', 'similar_to'];
  let known: { heads: Uint32Array; relations: Uint32Array; tails: Uint32Array };

  beforeAll(async () => {
    const triples = classGraph(80);
    const entities = [...new Set(triples.flatMap(([h, , t]) => [h, t]))].sort();
    const e = new Map(entities.map((x, i) => [x, i]));
    const flat = (ts: typeof triples) =>
      Uint32Array.from(ts.flatMap(([h, r, t]) => [e.get(h)!, relationNames.indexOf(r), e.get(t)!]));
    const heldOut = triples.filter((_, i) => i % 10 === 0);
    const kept = triples.filter((_, i) => i % 10 !== 0);
    await train(
      {
        entities,
        relations: relationNames,
        train: flat(kept),
        valid: flat(heldOut),
        test: flat(heldOut),
      },
      resolveTrainingConfig('default', { ...TINY, epochs: 10, evalEvery: 0 }),
      { outDir: dir },
    );
    const graph = {
      entities,
      relationNames,
      heads: Int32Array.from(kept, ([h]) => e.get(h)!),
      relations: Int32Array.from(kept, ([, r]) => relationNames.indexOf(r)),
      tails: Int32Array.from(kept, ([, , t]) => e.get(t)!),
    };
    writeRules(dir, await mineRules(graph));
    await writeVersionGraph(graph, dir);
    known = {
      heads: Uint32Array.from(graph.heads),
      relations: Uint32Array.from(graph.relations),
      tails: Uint32Array.from(graph.tails),
    };
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function withCombiner(setting: CombinerSetting, walkBudget: number): Promise<ServingModel> {
    const combiner: CombinerFile = {
      format: 1,
      walkBudget,
      global: setting,
      groups: {},
      fit: { edges: 0, modelMrr: 0, hybridMrr: 0, halves: [], seconds: 0 },
    };
    writeCombiner(dir, combiner);
    return loadServingModel(dir);
  }

  // A budget of 6 index entries cuts most questions' walks short: the rules a question reaches
  // its candidates by are the ones walked before its budget ran out, as the API serves them.
  it.each([
    { setting: { aggregate: 'max', w: 4 }, budget: 20_000 },
    { setting: { aggregate: 'noisyOr', w: 2 }, budget: 20_000 },
    { setting: { aggregate: 'max', w: 40 }, budget: 20_000 },
    { setting: { aggregate: 'noisyOr', w: 40 }, budget: 6 },
  ] as { setting: CombinerSetting; budget: number }[])(
    'lists the best n pairs exactly ($setting.aggregate x $setting.w, walk budget $budget)',
    async ({ setting, budget }) => {
      const model = await withCombiner(setting, budget);
      const byModel = await loadServingModel(dir);
      byModel.combiner = undefined;
      const { scorer } = model;
      const n = scorer.entities.length;
      const exclude = suggestionExclusions(scorer, known.heads, known.relations, known.tails);
      const excluded = new Set(
        Array.from(known.heads, (h, i) => `${h} ${known.relations[i]} ${known.tails[i]}`),
      );
      let differs = 0;
      for (const name of relationNames) {
        const relation = scorer.relation(name);
        const lists = await suggestRelation(model, relation, exclude, 12);
        const alone = await suggestRelation(byModel, relation, exclude, 12);
        for (const [d, list] of lists.entries()) {
          const direction = list.direction;
          // Every pair outside the exclusions, by a brute force over every entity both ways.
          const all: { key: string; served: number }[] = [];
          const servedOf = new Map<string, number>();
          for (let x = 0; x < n; x++) {
            const served = servedLogits(model, x, relation, direction);
            for (let y = 0; y < n; y++) {
              const [h, t] = direction === 'tail' ? [x, y] : [y, x];
              if (x === y || excluded.has(`${h} ${relation} ${t}`)) continue;
              all.push({ key: `${h} ${t}`, served: served[y] as number });
              servedOf.set(`${h} ${t}`, served[y] as number);
            }
          }
          all.sort((a, b) => b.served - a.served);
          const { heads, tails, logits } = list.columns;
          expect(logits).toHaveLength(12);
          logits.forEach((logit, i) => {
            const key = `${heads[i]} ${tails[i]}`;
            expect(servedOf.has(key)).toBe(true);
            expect(logit).toBeCloseTo(servedOf.get(key) as number, 3);
            expect(logit).toBeCloseTo((all[i] as { served: number }).served, 3);
          });
          const mine = Array.from(heads, (h, i) => `${h} ${tails[i]}`).join();
          const theirs = (alone[d] as (typeof alone)[number]).columns;
          if (mine !== Array.from(theirs.heads, (h, i) => `${h} ${theirs.tails[i]}`).join()) {
            differs++;
          }
        }
      }
      // The rules move some list, or the test would not tell the model's lists from the served.
      expect(differs).toBeGreaterThan(0);
    },
  );

  it('answers whether an edge is excluded, per relation', () => {
    const pairs = ExcludedPairs.of(
      10,
      3,
      Uint32Array.from([4, 0, 9, 4]),
      Uint32Array.from([2, 0, 2, 0]),
      Uint32Array.from([5, 1, 0, 5]),
    );
    expect(pairs.has(4, 2, 5)).toBe(true);
    expect(pairs.has(4, 0, 5)).toBe(true);
    expect(pairs.has(9, 2, 0)).toBe(true);
    expect(pairs.has(0, 0, 1)).toBe(true);
    expect(pairs.has(5, 2, 4)).toBe(false);
    expect(pairs.has(4, 1, 5)).toBe(false);
    expect(pairs.has(0, 2, 1)).toBe(false);
    expect(pairs.has(9, 2, 9)).toBe(false);
  });
});
