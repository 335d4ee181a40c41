import type { EventLoopTurns } from '../../event-loop-turns';
import type { Native } from '../native-engine';
import { plainCompetitors } from './rule-combiner';
import type { CombinerQuery } from './rule-combiner';
import type { GraphIndex } from './graph-index';
import { ruleEvidence } from './rule-evidence';
import type { RelationWalks } from './rule-evidence';

/** An edge by model ids (base relation). */
export interface IdEdge {
  head: number;
  relation: number;
  tail: number;
}

export interface CombinerQueryOptions {
  /** Every true answer of (entity, model relation): filtered out of the answer's competitors. */
  answers: (entity: number, modelRelation: number) => ReadonlySet<number> | undefined;
  /** Index entries one question's rule walks may take together. */
  walkBudget: number;
  /** Queries scored per engine call (x all entities each). */
  batch?: number;
  /** Milliseconds each query's rule walks took. */
  onWalk?: (ms: number) => void;
}

/**
 * Both directions of each edge as combiner queries: every entity's logit comes from the engine
 * (the entity rows scored against the query), the rule evidence from walking the rules from the
 * query's known end in `index` (the graph the rules were mined from). Exact over every entity.
 */
export async function combinerQueries(
  model: Native.NeptuneModel,
  index: GraphIndex,
  walks: readonly RelationWalks[],
  edges: readonly IdEdge[],
  options: CombinerQueryOptions,
  turns: EventLoopTurns,
): Promise<CombinerQuery[]> {
  const n = model.entities.length;
  const rows = model.entityVectors(Uint32Array.from({ length: n }, (_, i) => i));
  const asked = edges.flatMap((e) => {
    const name = model.relations[e.relation] as string;
    const rules = walks[e.relation] ?? { tail: [], head: [] };
    return [
      { x: e.head, rel: e.relation, answer: e.tail, rules: rules.tail, group: `${name}\ttail` },
      {
        x: e.tail,
        rel: model.reverseRelation(e.relation),
        answer: e.head,
        rules: rules.head,
        group: `${name}\thead`,
      },
    ];
  });
  const batch = options.batch ?? 128;
  const out: CombinerQuery[] = [];
  // One query's plain logits before they are cut and sorted (n floats, reused).
  const scratch = new Float32Array(n);
  // The entities a query leaves out of its plain logits (the answer, its other known answers,
  // the ones its rules reach) are those marked with its number.
  const left = new Uint32Array(n);
  let marked = 0;
  for (let b = 0; b < asked.length; b += batch) {
    const part = asked.slice(b, b + batch);
    const logits = await model.logitsAgainstAsync(
      Uint32Array.from(part, (q) => q.x),
      Uint32Array.from(part, (q) => q.rel),
      rows,
    );
    for (const [j, q] of part.entries()) {
      const started = performance.now();
      const evidence = ruleEvidence(index, q.x, q.rules, options.walkBudget);
      options.onWalk?.(performance.now() - started);
      const filtered = options.answers(q.x, q.rel);
      const skip = (e: number) => e === q.answer || filtered?.has(e) === true;
      marked++;
      left[q.answer] = marked;
      for (const e of filtered ?? []) left[e] = marked;
      for (const e of evidence.keys()) left[e] = marked;
      const row = logits.subarray(j * n, (j + 1) * n);
      const logit = row[q.answer] as number;
      let count = 0;
      for (let e = 0; e < n; e++) {
        const v = row[e] as number;
        if (v >= logit && left[e] !== marked) scratch[count++] = v;
      }
      const plain = scratch.subarray(0, count);
      const reached: number[] = [];
      for (const [e, ev] of evidence) {
        if (!skip(e)) reached.push(row[e] as number, ev.max, ev.noisyOr);
      }
      const own = evidence.get(q.answer);
      out.push({
        group: q.group,
        logit,
        max: own?.max ?? 0,
        noisyOr: own?.noisyOr ?? 0,
        ...plainCompetitors(plain),
        reached: Float32Array.from(reached),
      });
    }
    await turns.maybeTurn();
  }
  return out;
}
