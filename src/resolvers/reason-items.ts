import type { ReasonPairAnswer, ReasonPairQuery } from '../graph';
import type { Rule, ServingModel } from '../model';
import type { Prediction, PredictionQuery } from '../schema/prediction.type';
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

/** A prediction whose reasons are asked for: its pair (head to tail) and its relation's rules. */
export interface Asked {
  query: PredictionQuery;
  model: ServingModel;
  pair: ReasonPairQuery;
  rules: Rule[];
}

/** The pair a prediction's reasons are looked for on, with the rules of its relation. */
export function asked(prediction: Prediction): Asked | undefined {
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
export function pathReasons(item: Asked, answer: ReasonPairAnswer): Reason[] {
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
