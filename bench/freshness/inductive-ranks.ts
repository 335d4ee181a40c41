import type { Native } from '../../src/model/native-engine';
import type { Named } from './inductive-split';

/** MRR and Hits@10 of a set of ranks (an edge not answerable counts as rank infinity). */
export interface RankSummary {
  mrr: number;
  hits10: number;
  count: number;
}

export function summarise(ranks: number[]): RankSummary {
  const count = ranks.length;
  if (count === 0) return { mrr: 0, hits10: 0, count };
  const mrr = ranks.reduce((s, r) => s + (Number.isFinite(r) ? 1 / r : 0), 0) / count;
  const hits10 = ranks.filter((r) => r <= 10).length / count;
  return { mrr, hits10, count };
}

/**
 * Filtered ranks of the test edges in both directions: each edge's held-out end `x` as the head
 * of the query that asks for the known end, and as the candidate tail of the query from the
 * known end. Candidates are all the model's entities; every other true answer in `all` is
 * filtered out. An edge whose held-out end or relation the model lacks ranks at infinity
 * (what serving answers today: ENTITY_NOT_IN_MODEL). `headOf[i]` / `tailOf[i]`: the held-out
 * end of rank i (with an empty `heldOut`, each edge's tail: both directions of known edges).
 */
export async function inductiveRanks(
  model: Native.NeptuneModel,
  test: Named[],
  heldOut: Set<string>,
  all: Named[],
): Promise<{ asHead: number[]; asTail: number[]; headOf: string[]; tailOf: string[] }> {
  const entity = new Map(model.entities.map((e, i) => [e, i]));
  const relation = new Map(model.relations.map((r, i) => [r, i]));
  // True answers per (head name, model relation id) query, over the whole graph.
  const answers = new Map<string, number[]>();
  const add = (h: string, r: number, t: string) => {
    const id = entity.get(t);
    if (id === undefined) return;
    const key = `${h}\t${r}`;
    if (!answers.has(key)) answers.set(key, []);
    answers.get(key)!.push(id);
  };
  for (const [h, r, t] of all) {
    const id = relation.get(r);
    if (id === undefined) continue;
    add(h, id, t);
    add(t, model.reverseRelation(id), h);
  }
  const queries: { head: number; rel: number; tail: number; side: 'head' | 'tail'; x: string }[] =
    [];
  const missing: string[] = [];
  for (const [h, r, t] of test) {
    const rel = relation.get(r);
    const [hid, tid] = [entity.get(h), entity.get(t)];
    if (rel === undefined || hid === undefined || tid === undefined) {
      missing.push(heldOut.has(h) ? h : t);
      continue;
    }
    const reverse = model.reverseRelation(rel);
    // The held-out end x: as head of (x, r') -> known; as candidate of (known, r'') -> x.
    const [x, known, forward] = heldOut.has(h) ? [hid, tid, rel] : [tid, hid, reverse];
    const back = forward === rel ? reverse : rel;
    const name = heldOut.has(h) ? h : t;
    queries.push({ head: x, rel: forward, tail: known, side: 'head', x: name });
    queries.push({ head: known, rel: back, tail: x, side: 'tail', x: name });
  }
  const excludes = queries.map((q) => {
    const key = `${model.entities[q.head]}\t${q.rel}`;
    return Uint32Array.from((answers.get(key) ?? []).filter((e) => e !== q.tail));
  });
  const column = (f: (q: (typeof queries)[number]) => number) => Uint32Array.from(queries, f);
  const { ranks } = await model.filteredRanksAsync(
    column((q) => q.head),
    column((q) => q.rel),
    column((q) => q.tail),
    excludes,
  );
  const out = {
    asHead: missing.map(() => Infinity),
    asTail: missing.map(() => Infinity),
    headOf: [...missing],
    tailOf: [...missing],
  };
  queries.forEach((q, i) => {
    (q.side === 'head' ? out.asHead : out.asTail).push(ranks[i]!);
    (q.side === 'head' ? out.headOf : out.tailOf).push(q.x);
  });
  return out;
}
