/**
 * Rules as a second opinion (issue 58, item 1): does adding the mined rules' evidence to the
 * model's logit raise filtered MRR, and by how much, per source?
 *
 *   npx tsx bench/quality/hybrid.ts --data <datasets> --dataset UMLS --model <model dir>
 *     [--rules-per-relation 10] [--candidates 16] [--walk-budget 20000]
 *
 * `--model`: a model trained on the dataset's train split (`kgc train --dataset <dir> --out
 * <dir>`, no flags: the default). Rules are mined from the train split as a version mines them.
 * For each query (both directions of every valid and test edge) every entity gets the score
 * `logit + w · f`, where f is the rule evidence (max or noisy-or of the confidences of the rules
 * whose body reaches the entity from the query's known end; 0 where none does) and w ≥ 0 comes
 * from a grid; the answer's filtered rank is exact over every entity (all logits are computed).
 * Settings are chosen on validation only: one global setting, and one per (relation, direction)
 * with at least `MIN_GROUP` validation queries (w = 0, the model alone, is on the grid). The
 * validation halves (edges by parity) judge the choice: chosen on one half, scored on the other.
 * Test MRR is reported once, with the settings chosen on all of validation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EventLoopTurns } from '../../src/event-loop-turns';
import { nativeEngine, type Native } from '../../src/model/native-engine';
import { mineRules } from '../../src/model/rules';
import { combinerQueries, type IdEdge } from '../../src/model/rules/combiner-queries';
import { GraphIndex } from '../../src/model/rules/graph-index';
import {
  chooseCombiner,
  meanReciprocalRank,
  MODEL_ALONE,
  rankUnder,
  settingFor,
  type CombinerQuery,
  type RuleCombiner,
} from '../../src/model/rules/rule-combiner';
import { RuleWalker } from '../../src/model/rules/rule-walker';
import { seededRandom } from '../../src/seeded-random';
import { datasetDir, takeDataOption } from '../datasets';

type Named = [string, string, string];

function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

function readTriples(file: string): Named[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.split('\t') as Named);
}

const describe = (c: RuleCombiner) =>
  c.global.w === 0 ? 'model alone' : `${c.global.aggregate} w=${c.global.w}`;

async function main(): Promise<void> {
  const { data, rest } = takeDataOption(process.argv.slice(2));
  const name = option(rest, '--dataset');
  const modelDir = option(rest, '--model');
  if (!name || !modelDir) throw new Error('--dataset <name or dir> and --model <dir> are required');
  const rulesPerRelation = Number(option(rest, '--rules-per-relation') ?? 10);
  const candidatesPerRelation = Number(option(rest, '--candidates') ?? 16);
  const walkBudget = Number(option(rest, '--walk-budget') ?? 20_000);
  const dir = datasetDir(name, data);
  const [train, valid, test] = ['train', 'valid', 'test'].map((s) =>
    readTriples(path.join(dir, `${s}.txt`)),
  ) as [Named[], Named[], Named[]];
  const model = await nativeEngine().loadModel(path.resolve(modelDir), 256 << 20);
  const entity = new Map(model.entities.map((e, i) => [e, i]));
  const relation = new Map(model.relations.map((r, i) => [r, i]));
  const edges = (ts: Named[]): IdEdge[] =>
    ts
      .filter(([h, r, t]) => entity.has(h) && relation.has(r) && entity.has(t))
      .map(([h, r, t]) => ({
        head: entity.get(h)!,
        relation: relation.get(r)!,
        tail: entity.get(t)!,
      }));
  const trainEdges = edges(train);
  const trainIds = {
    heads: Int32Array.from(trainEdges, (e) => e.head),
    relations: Int32Array.from(trainEdges, (e) => e.relation),
    tails: Int32Array.from(trainEdges, (e) => e.tail),
  };
  const turns = new EventLoopTurns();
  const mined = await mineRules(
    { entities: model.entities, relationNames: model.relations, ...trainIds },
    { rulesPerRelation, candidatesPerRelation },
    turns,
  );
  const ruleCount = Object.values(mined.rules).reduce((s, l) => s + l.length, 0);
  console.log(
    `${name}: ${model.entities.length} entities, ${ruleCount} rules for ${Object.keys(mined.rules).length} of ${model.relations.length} relations, mined in ${mined.seconds.toFixed(1)} s (rules per relation ${rulesPerRelation}, candidates ${candidatesPerRelation}, walk budget ${walkBudget})`,
  );
  const index = await GraphIndex.build(
    model.entities.length,
    model.relations.length,
    trainIds.heads,
    trainIds.relations,
    trainIds.tails,
    turns,
  );
  const walker = new RuleWalker(mined, index, model.relations, walkBudget);
  const answers = new Map<string, Set<number>>();
  const addAnswer = (h: number, r: number, t: number) => {
    const key = `${h}\t${r}`;
    let set = answers.get(key);
    if (!set) answers.set(key, (set = new Set()));
    set.add(t);
  };
  for (const e of edges([...train, ...valid, ...test])) {
    addAnswer(e.head, e.relation, e.tail);
    addAnswer(e.tail, model.reverseRelation(e.relation), e.head);
  }
  const walkMs: number[] = [];
  const options = {
    answers: (x: number, r: number) => answers.get(`${x}\t${r}`),
    onWalk: (ms: number) => walkMs.push(ms),
  };
  const validEdges = edges(valid);
  const testEdges = edges(test);
  await checkLogits(model, testEdges.slice(0, 64));
  const validQ = await combinerQueries(model, walker, validEdges, options, turns);
  const testQ = await combinerQueries(model, walker, testEdges, options, turns);
  // Both directions of edge i are queries 2i and 2i + 1: halves by the edge's parity.
  const half = (qs: CombinerQuery[], h: number) => qs.filter((_, i) => (i >> 1) % 2 === h);
  const perGroup = (c: RuleCombiner) => (q: CombinerQuery) => settingFor(c, q.group);

  const table: string[][] = [];
  for (const h of [0, 1]) {
    const c = chooseCombiner(half(validQ, h));
    const judged = half(validQ, 1 - h);
    table.push([
      `valid half ${2 - h} (chosen on half ${h + 1})`,
      meanReciprocalRank(judged, () => MODEL_ALONE).toFixed(4),
      meanReciprocalRank(judged, () => c.global).toFixed(4),
      meanReciprocalRank(judged, perGroup(c)).toFixed(4),
      describe(c),
    ]);
  }
  const chosen = chooseCombiner(validQ);
  // The product's gate (fit-combiner.ts): the halves' held-out gains must sum above zero.
  const gated = table.reduce((sum, row) => sum + Number(row[3]) - Number(row[1]), 0) > 0;
  table.push([
    'test (chosen on all of valid)',
    meanReciprocalRank(testQ, () => MODEL_ALONE).toFixed(4),
    meanReciprocalRank(testQ, () => chosen.global).toFixed(4),
    meanReciprocalRank(testQ, perGroup(chosen)).toFixed(4),
    describe(chosen),
  ]);
  table.push([
    'test, rules first (max, w=1000)',
    '',
    meanReciprocalRank(testQ, () => ({ aggregate: 'max', w: 1000 })).toFixed(4),
    '',
    '',
  ]);
  // Test: the paired difference per edge (both directions), with a bootstrap over edges.
  const diff: number[] = [];
  const pick = perGroup(chosen);
  for (let i = 0; i + 1 < testQ.length; i += 2) {
    const [a, b] = [testQ[i]!, testQ[i + 1]!];
    const rr = (q: CombinerQuery, s: (q: CombinerQuery) => ReturnType<typeof pick>) =>
      1 / rankUnder(q, s(q));
    diff.push(
      (rr(a, pick) + rr(b, pick) - rr(a, () => MODEL_ALONE) - rr(b, () => MODEL_ALONE)) / 2,
    );
  }
  const random = seededRandom(2026);
  const means: number[] = [];
  for (let r = 0; r < 1000; r++) {
    let sum = 0;
    for (let j = 0; j < diff.length; j++) sum += diff[Math.floor(random() * diff.length)]!;
    means.push(sum / diff.length);
  }
  means.sort((a, b) => a - b);
  console.log(
    `the product would serve: ${gated ? 'the hybrid' : 'the model alone'} (held-out halves' gains sum ${gated ? 'above' : 'at or below'} zero)`,
  );
  console.log(
    `test MRR gain of the hybrid (per relation and direction) over the model alone: ${(diff.reduce((a, b) => a + b, 0) / diff.length).toFixed(4)}, 95% bootstrap interval over edges [${means[25]!.toFixed(4)}, ${means[974]!.toFixed(4)}]`,
  );
  console.log(
    `| ${name} | model alone | hybrid, one setting | hybrid, per relation and direction | global setting |`,
  );
  console.log('|---|---|---|---|---|');
  for (const row of table) console.log(`| ${row.join(' | ')} |`);
  const groups = Object.values(chosen.groups);
  walkMs.sort((a, b) => a - b);
  const at = (p: number) => walkMs[Math.min(walkMs.length - 1, Math.floor(p * walkMs.length))] ?? 0;
  const mean = walkMs.reduce((a, b) => a + b, 0) / Math.max(1, walkMs.length);
  const reached = testQ.reduce((s, q) => s + q.reached.length / 3, 0) / Math.max(1, testQ.length);
  const answerReached = testQ.filter((q) => q.max > 0).length / Math.max(1, testQ.length);
  console.log(
    `groups with their own setting: ${groups.length} (${groups.filter((s) => s.w > 0).length} use rules); ` +
      `rule walks per query: mean ${mean.toFixed(3)} ms, p99 ${at(0.99).toFixed(2)} ms, max ${at(1).toFixed(1)} ms; ` +
      `candidates reached per test query ${reached.toFixed(1)}; answer reached in ${(answerReached * 100).toFixed(1)}% of test queries`,
  );
}

/** The logits against the entity rows are the model's own scores (scoreTriples). */
async function checkLogits(model: Native.NeptuneModel, sample: IdEdge[]): Promise<void> {
  const heads = Uint32Array.from(sample, (e) => e.head);
  const relations = Uint32Array.from(sample, (e) => e.relation);
  const own = model.scoreTriples(
    heads,
    relations,
    Uint32Array.from(sample, (e) => e.tail),
  );
  const n = model.entities.length;
  const rows = model.entityVectors(Uint32Array.from({ length: n }, (_, i) => i));
  const logits = await model.logitsAgainstAsync(heads, relations, rows);
  for (const [j, e] of sample.entries()) {
    const a = logits[j * n + e.tail] as number;
    if (Math.abs(a - (own[j] as number)) > 1e-3 * Math.max(1, Math.abs(a))) {
      throw new Error(`logits against the entity rows differ from scoreTriples: ${a} vs ${own[j]}`);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
