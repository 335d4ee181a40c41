import type { EventLoopTurns } from '../../event-loop-turns';
import type { Native } from '../native-engine';
import { Float32Slabs } from './float-slabs';
import { plainCompetitors, plainKept } from './rule-combiner';
import type { CombinerQuery } from './rule-combiner';
import type { RuleWalker } from './rule-walker';
import { WalkedEvidence } from './walked-evidence';

/** An edge by model ids (base relation). */
export interface IdEdge {
  head: number;
  relation: number;
  tail: number;
}

export interface CombinerQueryOptions {
  /** Every true answer of (entity, model relation): filtered out of the answer's competitors. */
  answers: (entity: number, modelRelation: number) => ReadonlySet<number> | undefined;
  /** Queries scored per engine call (x all entities each; default: `logitBatch`). */
  batch?: number;
  /** Milliseconds each query's rule walks took. */
  onWalk?: (ms: number) => void;
}

/** Logits one engine call returns at most (16 MiB: on large graphs fewer queries a call). */
const LOGIT_FLOATS = 4 * 1024 * 1024;

/** Queries a call scores against `entities` entities: 128, fewer where that passes LOGIT_FLOATS. */
export function logitBatch(entities: number): number {
  return Math.max(1, Math.min(128, Math.floor(LOGIT_FLOATS / Math.max(1, entities))));
}

/** A question with nothing reached. */
const NOTHING = WalkedEvidence.fromEntries([]);

/**
 * Both directions of each edge as combiner queries: every entity's logit comes from the engine
 * (the model's entities scored against the query), the rule evidence from `walker` (the rules walked
 * from the query's known end in the graph they were mined from, within its budget). Exact over
 * every entity.
 */
export async function combinerQueries(
  model: Native.NeptuneModel,
  walker: RuleWalker,
  edges: readonly IdEdge[],
  options: CombinerQueryOptions,
  turns: EventLoopTurns,
): Promise<CombinerQuery[]> {
  const n = model.entities.length;
  const asked = edges.flatMap((e) => {
    const name = model.relations[e.relation] as string;
    const base = { relation: e.relation };
    return [
      { ...base, x: e.head, rel: e.relation, answer: e.tail, direction: 'tail' as const },
      {
        ...base,
        x: e.tail,
        rel: model.reverseRelation(e.relation),
        answer: e.head,
        direction: 'head' as const,
      },
    ].map((q) => ({ ...q, group: `${name}\t${q.direction}` }));
  });
  const batch = options.batch ?? logitBatch(n);
  const kept = plainKept(asked.length);
  const out: CombinerQuery[] = [];
  // Every query's kept arrays, held until the fit ends.
  const slabs = new Float32Slabs();
  // One query's plain logits before they are cut and sorted (n floats, reused).
  const scratch = new Float32Array(n);
  // The entities a query leaves out of its plain logits (the answer, its other known answers,
  // the ones its rules reach) are those marked with its number.
  const left = new Uint32Array(n);
  let marked = 0;
  for (let b = 0; b < asked.length; b += batch) {
    const part = asked.slice(b, b + batch);
    const logits = await model.logitsAsync(
      Uint32Array.from(part, (q) => q.x),
      Uint32Array.from(part, (q) => q.rel),
    );
    for (const [j, q] of part.entries()) {
      const started = performance.now();
      const evidence = walker.evidence(q.x, q.relation, q.direction) ?? NOTHING;
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
      for (let i = 0; i < evidence.size; i++) {
        const e = evidence.candidate(i);
        if (!skip(e)) {
          reached.push(
            row[e] as number,
            evidence.aggregate(i, 'max'),
            evidence.aggregate(i, 'noisyOr'),
          );
        }
      }
      const own = evidence.get(q.answer);
      out.push({
        group: q.group,
        logit,
        max: own?.max ?? 0,
        noisyOr: own?.noisyOr ?? 0,
        ...plainCompetitors(plain, kept, slabs),
        reached: slabs.copy(reached),
      });
    }
    await turns.maybeTurn();
  }
  return out;
}
