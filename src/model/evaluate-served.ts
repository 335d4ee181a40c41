import path from 'node:path';
import type { Direction } from '../direction';
import { readTripleFile } from './calibration/triple-file';
import type { Metrics, RankMetrics, RelationMetrics } from './metrics';
import { EventLoopTurns, TURN_CHECK_EVERY } from '../event-loop-turns';
import type { RankQuery, Scorer } from './scorer';
import type { ServedCombiner } from './rules/served-combiner';
import { servedRanks } from './served-ranks';
import { loadServingModel } from './serving-model';

/** Questions ranked per engine call. */
const CHUNK = 1024;

function summarise(ranks: number[]): RankMetrics {
  const count = ranks.length;
  const share = (k: number) => ranks.filter((r) => r <= k).length / Math.max(1, count);
  return {
    count,
    mrr: ranks.reduce((s, r) => s + 1 / r, 0) / Math.max(1, count),
    mr: ranks.reduce((s, r) => s + r, 0) / Math.max(1, count),
    hits1: share(1),
    hits3: share(3),
    hits10: share(10),
  };
}

/**
 * Filtered ranking metrics of a model folder as it serves: every triple of the split asks for
 * its tail and for its head, ranked by the served logit (the model's plus the rules' evidence
 * its combiner adds, served-ranks.ts), the other known answers of train, valid and test
 * filtered out. Undefined when the folder has no active combiner: the engine's evaluation is
 * then the served one.
 */
export async function evaluateServed(
  modelDir: string,
  datasetDir: string,
  split: 'valid' | 'test',
): Promise<Metrics | undefined> {
  const model = await loadServingModel(modelDir);
  if (!model.combiner) return undefined;
  const { scorer } = model;
  const vocabulary = {
    entity: (id: string) => scorer.findEntity(id),
    relation: (name: string) => scorer.findRelation(name),
  };
  const read = (name: string) =>
    readTripleFile(path.join(datasetDir, `${name}.txt`), vocabulary).ids;
  const splits = { train: read('train'), valid: read('valid'), test: read('test') };
  return servedMetrics(scorer, model.combiner, splits[split], Object.values(splits));
}

/**
 * Filtered ranking metrics of `asked` (flat [h, r, t, ...] in the model's ids) by the served
 * logit: each triple asks for its tail and for its head, and a question's other answers in
 * `known` (every known triple, flat, `asked`'s among them) are filtered out.
 */
export async function servedMetrics(
  scorer: Scorer,
  combiner: ServedCombiner,
  asked: ArrayLike<number>,
  known: readonly ArrayLike<number>[],
): Promise<Metrics> {
  const turns = new EventLoopTurns();
  const questions: RankQuery[] = [];
  // Known answers of the asked questions only: (entity, relation, direction) -> answers.
  const answers = new Map<string, number[]>();
  for (let i = 0; i + 2 < asked.length; i += 3) {
    const [h, r, t] = [asked[i] as number, asked[i + 1] as number, asked[i + 2] as number];
    questions.push({ entity: h, relation: r, direction: 'tail', tail: t });
    questions.push({ entity: t, relation: r, direction: 'head', tail: h });
    answers.set(`${h}\t${r}\ttail`, []);
    answers.set(`${t}\t${r}\thead`, []);
  }
  for (const flat of known) {
    for (let i = 0; i + 2 < flat.length; i += 3) {
      if (i % (3 * TURN_CHECK_EVERY) === 0) await turns.maybeTurn();
      const [h, r, t] = [flat[i] as number, flat[i + 1] as number, flat[i + 2] as number];
      answers.get(`${h}\t${r}\ttail`)?.push(t);
      answers.get(`${t}\t${r}\thead`)?.push(h);
    }
  }
  // One list per question, its own answer in it (a rank never counts its answer), so the
  // queries asking a question share it.
  const lists = new Map<string, Uint32Array>();
  for (const [key, list] of answers) lists.set(key, Uint32Array.from(list));
  // The queries of one question side by side, so that a chunk walks and scores it once for all;
  // the ranks kept in the order asked, so equal ranks sum to the same MRR to the last bit.
  const order = questions.map((_, i) => i);
  const keyOf = (i: number) => questions[i] as RankQuery;
  order.sort((i, j) => {
    const [a, b] = [keyOf(i), keyOf(j)];
    return (
      a.relation - b.relation ||
      (a.direction as string).localeCompare(b.direction as string) ||
      a.entity - b.entity
    );
  });
  const ranks = new Array<number>(questions.length);
  for (let start = 0; start < order.length; start += CHUNK) {
    const slot = order.slice(start, start + CHUNK);
    const chunk = slot.map(keyOf);
    const excludes = chunk.map((q) => lists.get(`${q.entity}\t${q.relation}\t${q.direction}`));
    const ranked = await servedRanks(scorer, combiner, chunk, excludes);
    slot.forEach((i, j) => (ranks[i] = ranked.ranks[j] as number));
  }
  const byDirection = (d: Direction) => ranks.filter((_, i) => questions[i]?.direction === d);
  const perRelation: RelationMetrics[] = [];
  for (const [r, relation] of scorer.relations.entries()) {
    for (const direction of ['tail', 'head'] as const) {
      const own = ranks.filter(
        (_, i) => questions[i]?.relation === r && questions[i]?.direction === direction,
      );
      if (own.length > 0) perRelation.push({ relation, direction, metrics: summarise(own) });
    }
  }
  return {
    overall: summarise(ranks),
    tail: summarise(byDirection('tail')),
    head: summarise(byDirection('head')),
    perRelation,
  };
}
