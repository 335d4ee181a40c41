import type { RankQuery } from '../../../src/model/scorer';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadServingModel, resolveTrainingConfig, train } from '../../../src/model';
import type { ScoredEntity, ServingModel } from '../../../src/model';
import { mineRules, writeRules, writeVersionGraph } from '../../../src/model/rules';
import { writeCombiner } from '../../../src/model/rules/combiner-file';
import type { CombinerFile } from '../../../src/model/rules/combiner-file';
import { servedMetrics, servedRanks } from '../../../src/model';
import { rankWithRules, walkQueries } from '../../../src/resolvers/rule-ranking';
import { classGraph } from '../../support/generated-graph';
import { TINY } from '../../support/lifecycle';
import { servedLogits } from '../../support/served-logits';

jest.setTimeout(60_000);

describe('ranking by model and rules', () => {
  let dir: string;
  let model: ServingModel;
  let splits: { asked: Uint32Array; known: Uint32Array[] };

  beforeAll(async () => {
    const triples = classGraph(80);
    const entities = [...new Set(triples.flatMap(([h, , t]) => [h, t]))].sort();
    const relations = ['is_a', 'similar_to'];
    const e = new Map(entities.map((x, i) => [x, i]));
    const flat = (ts: typeof triples) =>
      Uint32Array.from(ts.flatMap(([h, r, t]) => [e.get(h)!, relations.indexOf(r), e.get(t)!]));
    const heldOut = triples.filter((_, i) => i % 10 === 0);
    const kept = triples.filter((_, i) => i % 10 !== 0);
    splits = { asked: flat(heldOut), known: [flat(kept), flat(heldOut)] };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgc-rule-ranking-'));
    await train(
      { entities, relations, train: flat(kept), valid: flat(heldOut), test: flat(heldOut) },
      resolveTrainingConfig('default', { ...TINY, epochs: 10, evalEvery: 0 }),
      { outDir: dir },
    );
    const graph = {
      entities,
      relationNames: relations,
      heads: Int32Array.from(kept, ([h]) => e.get(h)!),
      relations: Int32Array.from(kept, ([, r]) => relations.indexOf(r)),
      tails: Int32Array.from(kept, ([, , t]) => e.get(t)!),
    };
    writeRules(dir, await mineRules(graph));
    await writeVersionGraph(graph, dir);
    const combiner: CombinerFile = {
      format: 1,
      walkBudget: 20_000,
      global: { aggregate: 'max', w: 4 },
      groups: {},
      fit: { edges: 0, modelMrr: 0, hybridMrr: 0, halves: [], seconds: 0 },
    };
    writeCombiner(dir, combiner);
    model = await loadServingModel(dir);
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads the combiner with the rules and the graph', () => {
    expect(model.combiner?.active).toBe(true);
    const relation = model.scorer.findRelation('is_a') as number;
    const reached = model.combiner?.evidence(
      model.scorer.findEntity('e5') as number,
      relation,
      'tail',
    );
    expect(reached?.found.size).toBeGreaterThan(0);
  });

  it('lists the best k by served logit, exactly, from the model best k and the rules', async () => {
    let changed = 0;
    for (const relationName of ['is_a', 'similar_to']) {
      const relation = model.scorer.findRelation(relationName) as number;
      for (let i = 0; i < 80; i += 7) {
        const entity = model.scorer.findEntity(`e${i}`) as number;
        const excluded = [entity, (entity + 3) % 84];
        const k = 5;
        const [top] = await model.scorer.topKBatchAsync(
          [{ entity, relation, direction: 'tail' }],
          k,
          [excluded],
        );
        const query = { entity, relation, direction: 'tail', typed: false, excluded } as const;
        const [evidence] = await walkQueries(model, [query]);
        const walkedNow = model.combiner?.evidence(entity, relation, 'tail')?.found;
        expect([...(evidence?.found ?? [])]).toEqual([...(walkedNow ?? [])]);
        const ranked = await rankWithRules(model, query, top as ScoredEntity[], k, evidence);
        const served = servedLogits(model, entity, relation);
        const want = Array.from(served.keys())
          .filter((e) => !excluded.includes(e))
          .sort((a, b) => (served[b] as number) - (served[a] as number) || a - b)
          .slice(0, k);
        expect(ranked.map((r) => r.index)).toEqual(want);
        ranked.forEach((r) => expect(r.logit).toBeCloseTo(served[r.index] as number, 4));
        if (
          ranked.map((r) => r.index).join() !== (top as ScoredEntity[]).map((r) => r.index).join()
        ) {
          changed++;
        }
      }
    }
    expect(changed).toBeGreaterThan(0);
  });

  it("ranks a question's answer among served logits, in both directions", async () => {
    const relation = model.scorer.findRelation('similar_to') as number;
    for (const direction of ['tail', 'head'] as const) {
      let raised = 0;
      for (let i = 0; i < 80; i += 5) {
        const entity = model.scorer.findEntity(`e${i}`) as number;
        const served = servedLogits(model, entity, relation, direction);
        for (const tail of [(entity + 8) % 80, (entity + 1) % 80]) {
          const excluded = [entity];
          const question = { entity, relation, direction, tail };
          const { ranks, logits } = await servedRanks(
            model.scorer,
            model.combiner,
            [question],
            [excluded],
          );
          expect(logits[0]).toBeCloseTo(served[tail] as number, 4);
          const s = served[tail] as number;
          let above = 0;
          let equal = 0;
          served.forEach((v, e) => {
            if (e === tail || excluded.includes(e)) return;
            if (Math.abs(v - s) < 1e-5) equal++;
            else if (v > s) above++;
          });
          expect(ranks[0]).toBeCloseTo(1 + above + equal / 2, 5);
          const alone = await model.scorer.filteredRanksAsync([question], [excluded]);
          if ((logits[0] as number) > (alone.logits[0] as number) + 1e-6) raised++;
        }
      }
      expect(raised).toBeGreaterThan(0);
    }
  });

  it('ranks a batch of questions as it ranks each alone (shared questions and exclusion lists)', async () => {
    const relation = model.scorer.findRelation('similar_to') as number;
    const queries: RankQuery[] = [];
    const excludes: number[][] = [];
    for (const direction of ['tail', 'head'] as const) {
      for (let i = 0; i < 80; i += 5) {
        const entity = model.scorer.findEntity(`e${i}`) as number;
        // One list for every answer of the question, as edgeProbabilities shares it.
        const shared = [entity, (entity + 3) % 80];
        for (const tail of [(entity + 8) % 80, (entity + 1) % 80, (entity + 3) % 80]) {
          queries.push({ entity, relation, direction, tail });
          excludes.push(shared);
        }
      }
    }
    const batch = await servedRanks(model.scorer, model.combiner, queries, excludes);
    for (const [i, q] of queries.entries()) {
      const alone = await servedRanks(model.scorer, model.combiner, [q], [[...excludes[i]!]]);
      expect(batch.ranks[i]).toBeCloseTo(alone.ranks[0]!, 6);
      expect(batch.logits[i]).toBeCloseTo(alone.logits[0]!, 5);
    }
  });

  it("evaluates as served: each question's answers ranked as each alone, the others filtered", async () => {
    const { asked, known } = splits;
    const metrics = await servedMetrics(model.scorer, model.combiner!, asked, known);
    const ranks: number[] = [];
    const byDirection = { tail: [] as number[], head: [] as number[] };
    for (let i = 0; i < asked.length; i += 3) {
      const [h, r, t] = [asked[i]!, asked[i + 1]!, asked[i + 2]!];
      for (const [entity, answer, direction] of [
        [h, t, 'tail'],
        [t, h, 'head'],
      ] as const) {
        // The question's known answers but its own.
        const others: number[] = [];
        for (const list of known) {
          for (let j = 0; j < list.length; j += 3) {
            const [a, b, c] = [list[j]!, list[j + 1]!, list[j + 2]!];
            if (b !== r) continue;
            if (direction === 'tail' && a === entity && c !== answer) others.push(c);
            if (direction === 'head' && c === entity && a !== answer) others.push(a);
          }
        }
        const query = { entity, relation: r, direction, tail: answer };
        const alone = await servedRanks(model.scorer, model.combiner, [query], [others]);
        ranks.push(alone.ranks[0]!);
        byDirection[direction].push(alone.ranks[0]!);
      }
    }
    const mrr = (of: number[]) => of.reduce((sum, rank) => sum + 1 / rank, 0) / of.length;
    expect(metrics.overall.count).toBe(ranks.length);
    // Summed in the order asked, to the last bit: the promotion gate compares two versions' MRRs,
    // and equal ranks must not tip it either way.
    expect(metrics.overall.mrr).toBe(mrr(ranks));
    expect(metrics.overall.mr).toBe(ranks.reduce((a, b) => a + b, 0) / ranks.length);
    expect(metrics.tail.mrr).toBe(mrr(byDirection.tail));
    expect(metrics.head.mrr).toBe(mrr(byDirection.head));
    expect(metrics.tail.mrr).not.toBeCloseTo(metrics.head.mrr, 3);
  });
});
