import { reasonPathsBatch } from '../graph';
import type { Database, ReasonPairAnswer, ReasonPairQuery } from '../graph';
import type { Rule, ServingModel } from '../model';
import type { Prediction, PredictionQuery } from '../schema/prediction.type';
import { ConcurrencyGate } from './concurrency-gate';
import { Reason, ReasonKind, ReasonRule } from '../schema/reason.type';

/** Reasons per prediction. */
export const MAX_REASONS = 3;
/** The best rules of a relation looked for in the graph (each is one bounded match per pair). */
const SERVED_RULES = 5;

/** `a(x,z) ∧ b(y,z) ⇒ r(x,y)`: a rule as people write it. */
function ruleText(rule: Rule): string {
  const vars = [
    'x',
    ...rule.body.slice(1).map((_, i) => `z${rule.body.length > 2 ? i + 1 : ''}`),
    'y',
  ];
  const atoms = rule.body.map((atom, i) => {
    const [from, to] = [vars[i], vars[i + 1]];
    return atom.inverse ? `${atom.relation}(${to},${from})` : `${atom.relation}(${from},${to})`;
  });
  return `${atoms.join(' ∧ ')} ⇒ ${rule.relation}(x,y)`;
}

function toReasonRule(rule: Rule): ReasonRule {
  return {
    relation: rule.relation,
    body: rule.body.map((atom) => ({ relation: atom.relation, inverse: atom.inverse })),
    support: rule.support,
    confidence: rule.confidence,
    text: ruleText(rule),
  };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

interface Asked {
  query: PredictionQuery;
  model: ServingModel;
  pair: ReasonPairQuery;
  rules: Rule[];
}

/** The pair a prediction's reasons are looked for on, with the rules of its relation. */
function asked(prediction: Prediction): Asked | undefined {
  const query = prediction.query;
  if (!query) return undefined;
  const model = query.model as ServingModel;
  const rules = (model.rules?.rules[query.relation] ?? []).slice(0, SERVED_RULES);
  const tail = query.direction === 'tail';
  const suggested = prediction.entity.id;
  return {
    query,
    model,
    rules,
    pair: {
      head: tail ? query.entity : suggested,
      tail: tail ? suggested : query.entity,
      relation: query.relation,
      rules: rules.map((rule, index) => ({
        index,
        types: rule.body.map((atom) => atom.relation),
        forward: rule.body.map((atom) => !atom.inverse),
      })),
      suggested,
      suggestedIsHead: !tail,
    },
  };
}

/** Paths first, one per rule in rule order, then more paths of the same rules. */
function pathReasons(item: Asked, answer: ReasonPairAnswer): Reason[] {
  const first = new Map<number, Reason>();
  const more: Reason[] = [];
  for (const path of answer.paths) {
    const rule = item.rules[path.rule];
    if (!rule) continue;
    const reason: Reason = {
      kind: ReasonKind.PATH,
      rule: toReasonRule(rule),
      edges: path.edges,
      similarity: null,
    };
    if (first.has(path.rule)) more.push(reason);
    else first.set(path.rule, reason);
  }
  const ordered = [...first.entries()].sort((a, b) => a[0] - b[0]).map(([, reason]) => reason);
  return [...ordered, ...more].slice(0, MAX_REASONS);
}

/**
 * Known edges (h', r, t) whose h' lies nearest the query entity in the model's embedding space
 * (mirrored for head queries: (h, r, t') with t' nearest the query entity).
 */
function similarReasons(items: Asked[], answers: ReasonPairAnswer[]): Map<number, Reason[]> {
  const out = new Map<number, Reason[]>();
  const byModel = new Map<ServingModel, number[]>();
  items.forEach((item, i) => {
    if ((answers[i]?.paths.length ?? 0) > 0 || (answers[i]?.similar.length ?? 0) === 0) return;
    byModel.set(item.model, [...(byModel.get(item.model) ?? []), i]);
  });
  for (const [model, members] of byModel) {
    const { scorer } = model;
    const wanted = new Set<number>();
    for (const i of members) {
      const item = items[i] as Asked;
      const anchor = scorer.findEntity(item.query.entity);
      if (anchor === undefined) continue;
      wanted.add(anchor);
      for (const id of answers[i]?.similar ?? []) {
        const index = scorer.findEntity(id);
        if (index !== undefined) wanted.add(index);
      }
    }
    const indices = [...wanted];
    const vectors = new Map(scorer.entityVectors(indices).map((row, j) => [indices[j], row]));
    for (const i of members) {
      const item = items[i] as Asked;
      const { query } = item;
      const anchor = vectors.get(scorer.findEntity(query.entity) as number);
      if (!anchor) continue;
      const ranked = (answers[i]?.similar ?? [])
        .map((id) => ({ id, row: vectors.get(scorer.findEntity(id) as number) }))
        .filter((c): c is { id: string; row: Float32Array } => c.row !== undefined)
        .map(({ id, row }) => ({ id, similarity: cosine(anchor, row) }))
        .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1))
        .slice(0, MAX_REASONS);
      out.set(
        i,
        ranked.map(({ id, similarity }) => ({
          kind: ReasonKind.SIMILAR_ENTITY,
          rule: null,
          edges: [
            item.pair.suggestedIsHead
              ? { head: item.pair.suggested, relation: query.relation, tail: id }
              : { head: id, relation: query.relation, tail: item.pair.suggested },
          ],
          similarity,
        })),
      );
    }
  }
  return out;
}

/**
 * Reasons reads running at once, per process. A reasons read walks paths through hubs and holds
 * its connection far longer than a known-edges read: without a cap, a burst of them takes every
 * connection of the driver's pool and the other requests' reads time out waiting for one
 * (bench/api/RESULTS.md, issue 38). Requests beyond it wait for their turn.
 */
const REASONS_READS_AT_ONCE = 8;
const reasonsReads = new ConcurrencyGate(REASONS_READS_AT_ONCE);

/**
 * The reasons of many predictions (all those of one request) with one graph read: rule paths
 * between each prediction's head and tail, else the nearest known edges of its relation.
 */
export async function reasonsBatch(
  db: Database,
  predictions: readonly Prediction[],
): Promise<Reason[][]> {
  const items: (Asked | undefined)[] = predictions.map(asked);
  const present = items.filter((item): item is Asked => item !== undefined);
  const answers = await reasonsReads.run(() =>
    reasonPathsBatch(
      db,
      present.map((item) => item.pair),
    ),
  );
  const similar = similarReasons(present, answers);
  const reasons = new Map<Asked, Reason[]>();
  present.forEach((item, i) => {
    const answer = answers[i] as ReasonPairAnswer;
    const paths = pathReasons(item, answer);
    reasons.set(item, paths.length > 0 ? paths : (similar.get(i) ?? []));
  });
  return items.map((item) => (item ? (reasons.get(item) ?? []) : []));
}
