/**
 * Reasons coverage (issue 38): the share of top-1 suggestions for the test queries of a dataset
 * that carry a path reason, a rule instance with confidence >= 0.1 between head and tail.
 *
 *   npx tsx bench/trust/reasons.ts [--model <dir>] [--data <dir>] [--dataset <name|dir>]
 *       [--limit N] [--min-confidence 0.1] [--rules 5]
 *
 * Rules are mined from train.txt as the retrain job mines a version's graph. Each test triple
 * (h, r, t) asks two queries, (h, r, ?) and (?, r, t); the suggestion is the best entity as the
 * model folder serves it (by the served logit, the model's plus its rules' evidence, where the
 * folder has a combiner: `kgc train --dataset` writes one; `--model-alone`: the model's logit)
 * after the filtered protocol (known answers of train, valid and test left out, the query's own
 * answer kept). Paths are checked in memory over train + valid + test, never through the query's
 * own edge. Prints a table.
 */
import path from 'node:path';
import { datasetDir, takeDataOption } from '../datasets';
import { loadServingModel } from '../../src/model';
import { rankWithRules, walkQueries } from '../../src/resolvers/rule-ranking';
import { mineRules } from '../../src/model/rules';
import type { Rule } from '../../src/model/rules';
import { GraphIndex } from '../../src/model/rules/graph-index';
import { EventLoopTurns } from '../../src/event-loop-turns';
import { readTriples, Vocabulary } from './dataset-arrays';
import type { TripleColumns } from './dataset-arrays';

interface Args {
  model: string;
  dataset: string;
  limit: number;
  minConfidence: number;
  /** Rules looked for per relation: serving looks for the best 5 (src/resolvers/reasons.ts). */
  rules: number;
  /** Rank by the model's logit even where the folder combines model and rules. */
  modelAlone: boolean;
}

function parseArgs(argv: string[]): Args {
  const { data, rest } = takeDataOption(argv);
  const value = (name: string) => {
    const i = rest.indexOf(name);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  return {
    model: path.resolve(value('--model') ?? '/work/bench-models/FB15k-237'),
    dataset: datasetDir(value('--dataset') ?? 'FB15k-237', data),
    limit: Number(value('--limit') ?? Infinity),
    minConfidence: Number(value('--min-confidence') ?? 0.1),
    rules: Number(value('--rules') ?? 5),
    modelAlone: rest.includes('--model-alone'),
  };
}

/** Whether a simple path x -> y instantiates `rule` (steps 2r forward, 2r + 1 backward). */
function hasPath(
  index: GraphIndex,
  rule: Rule,
  relationId: (name: string) => number,
  x: number,
  y: number,
  own: [number, number, number],
): boolean {
  const steps = rule.body.map((a) => 2 * relationId(a.relation) + (a.inverse ? 1 : 0));
  const ownEdge = (from: number, step: number, to: number) => {
    const [h, r, t] = own;
    return (
      (step === 2 * r && from === h && to === t) || (step === 2 * r + 1 && from === t && to === h)
    );
  };
  const visit = (node: number, depth: number, seen: number[]): boolean => {
    const [start, end] = index.range(node, steps[depth] as number);
    for (let e = start; e < end; e++) {
      const next = index.neighbour[e] as number;
      if (seen.includes(next) || ownEdge(node, steps[depth] as number, next)) continue;
      if (depth === steps.length - 1) {
        if (next === y) return true;
      } else if (next !== y && visit(next, depth + 1, [...seen, next])) return true;
    }
    return false;
  };
  return x !== y && visit(x, 0, [x]);
}

function concat(parts: TripleColumns[]): TripleColumns {
  const join = (key: keyof TripleColumns) => {
    const out = new Int32Array(parts.reduce((n, p) => n + p[key].length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p[key], at);
      at += p[key].length;
    }
    return out;
  };
  return { heads: join('heads'), relations: join('relations'), tails: join('tails') };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const vocab = new Vocabulary();
  const [train, valid, test] = ['train', 'valid', 'test'].map((split) =>
    readTriples(path.join(args.dataset, `${split}.txt`), vocab),
  ) as [TripleColumns, TripleColumns, TripleColumns];
  const relationNames = [...vocab.relations.keys()];
  const entityNames = [...vocab.entities.keys()];
  const rules = await mineRules({ entities: entityNames, relationNames, ...train });
  const all = concat([train, valid, test]);
  const index = await GraphIndex.build(
    entityNames.length,
    relationNames.length,
    all.heads,
    all.relations,
    all.tails,
    new EventLoopTurns(),
  );
  const known = new Map<string, number[]>();
  for (let i = 0; i < all.heads.length; i++) {
    const [h, r, t] = [all.heads[i], all.relations[i], all.tails[i]] as number[];
    for (const [key, answer] of [
      [`t ${h} ${r}`, t],
      [`h ${t} ${r}`, h],
    ] as const) {
      const list = known.get(key) ?? [];
      list.push(answer as number);
      known.set(key, list);
    }
  }
  const served = await loadServingModel(args.model);
  const ranking = served.combiner && !args.modelAlone ? 'served: model and rules' : 'model alone';
  const { scorer } = served;
  const toModel = (id: number) => scorer.findEntity(entityNames[id] as string);
  const fromModel = new Map(entityNames.map((name, id) => [scorer.findEntity(name), id]));

  interface Query {
    h: number;
    r: number;
    t: number;
    tail: boolean;
  }
  const queries: Query[] = [];
  const count = Math.min(test.heads.length, args.limit);
  for (let i = 0; i < count; i++) {
    const [h, r, t] = [test.heads[i], test.relations[i], test.tails[i]] as number[];
    queries.push({ h: h as number, r: r as number, t: t as number, tail: true });
    queries.push({ h: h as number, r: r as number, t: t as number, tail: false });
  }
  let scored = 0;
  let withReason = 0;
  let withAnyRule = 0;
  const byDirection = { tail: [0, 0], head: [0, 0] };
  const chunk = 256;
  for (let start = 0; start < queries.length; start += chunk) {
    const part = queries.slice(start, start + chunk).filter((q) => {
      const ok = toModel(q.h) !== undefined && toModel(q.t) !== undefined;
      return ok && scorer.findRelation(relationNames[q.r] as string) !== undefined;
    });
    const queryOf = (q: Query) => ({
      entity: toModel(q.tail ? q.h : q.t) as number,
      relation: scorer.findRelation(relationNames[q.r] as string) as number,
      direction: q.tail ? ('tail' as const) : ('head' as const),
    });
    const excludes = part.map((q) => {
      const anchor = q.tail ? q.h : q.t;
      const target = q.tail ? q.t : q.h;
      const answers = known.get(`${q.tail ? 't' : 'h'} ${anchor} ${q.r}`) ?? [];
      return [anchor, ...answers.filter((a) => a !== target)]
        .map(toModel)
        .filter((m): m is number => m !== undefined);
    });
    const modelTops = scorer.topKBatch(part.map(queryOf), 1, excludes);
    // The best by the served logit, as missingLinks lists it (exact over every entity).
    const tops =
      ranking === 'model alone'
        ? modelTops
        : await Promise.all(
            part.map(async (q, j) => {
              const query = { ...queryOf(q), typed: false, excluded: excludes[j] ?? [] };
              const [evidence] = await walkQueries(served, [query]);
              return rankWithRules(served, query, modelTops[j] ?? [], 1, evidence);
            }),
          );
    part.forEach((q, j) => {
      const top = tops[j]?.[0];
      const s = top && fromModel.get(top.index);
      if (s === undefined) return;
      scored++;
      const [x, y] = q.tail ? [q.h, s] : [s, q.t];
      const relationRules = (rules.rules[relationNames[q.r] as string] ?? []).slice(0, args.rules);
      const fired = relationRules.filter((rule) =>
        hasPath(index, rule, (name) => vocab.relations.get(name) as number, x, y, [q.h, q.r, q.t]),
      );
      const direction = byDirection[q.tail ? 'tail' : 'head'];
      direction[1]!++;
      if (fired.length > 0) withAnyRule++;
      if (fired.some((rule) => rule.confidence >= args.minConfidence)) {
        withReason++;
        direction[0]!++;
      }
    });
  }
  const pct = (a: number, b: number) => (b > 0 ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
  const rows: [string, string][] = [
    ['dataset', args.dataset],
    ['model', args.model],
    ['top-1 ranked by', ranking],
    [
      'rules mined (train)',
      `${Object.values(rules.rules).flat().length} for ${Object.keys(rules.rules).length} relations in ${rules.seconds.toFixed(1)} s`,
    ],
    ['top-1 suggestions checked', String(scored)],
    [`with a path reason, confidence >= ${args.minConfidence}`, pct(withReason, scored)],
    ['  tail queries', pct(byDirection.tail[0]!, byDirection.tail[1]!)],
    ['  head queries', pct(byDirection.head[0]!, byDirection.head[1]!)],
    ['with a path reason of any confidence', pct(withAnyRule, scored)],
    [
      'target (issues 38, 58)',
      `>= 60%: ${withReason / Math.max(1, scored) >= 0.6 ? 'pass' : 'FAIL'}`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
