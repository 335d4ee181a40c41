/**
 * What a fold-in does to everyone else (issue 57): the known entities' test edges ranked before
 * and after, how much of their top 10 the folded entities take, and an interval over entities.
 */
import { EventLoopTurns } from '../../src/event-loop-turns';
import { GraphIndex } from '../../src/model/rules/graph-index';
import type { Native } from '../../src/model/native-engine';
import { seededRandom } from '../../src/seeded-random';
import { inductiveRanks, summarise } from './inductive-ranks';
import type { Named } from './inductive-split';

/** Known-known test edges scored for the harm: a seeded sample (both directions each). */
export const HARM_EDGES = 2000;

/** A seeded sample of `n` of `edges`. */
export function sample<T>(edges: T[], n: number, seed: number): T[] {
  const next = seededRandom(seed);
  const out = [...edges];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out.slice(0, n);
}

/** Filtered MRR of `edges` (both ends known to `model`) in both directions. */
export async function knownMrr(
  model: Native.NeptuneModel,
  edges: Named[],
  all: Named[],
): Promise<number> {
  const { asHead, asTail } = await inductiveRanks(model, edges, new Set(), all);
  return summarise([...asHead, ...asTail]).mrr;
}

/**
 * The share of the known edges' queries' filtered top 10 (both directions) that entities with
 * ids from `firstFolded` on take, and those entities' share of all entities.
 */
export function foldedTopShare(
  grown: Native.NeptuneModel,
  firstFolded: number,
  edges: Named[],
  all: Named[],
): { top10: number; entities: number } {
  const entity = new Map(grown.entities.map((e, i) => [e, i]));
  const relation = new Map(grown.relations.map((r, i) => [r, i]));
  const answers = new Map<string, number[]>();
  const add = (h: number, r: number, t: number) => {
    const key = `${h}\t${r}`;
    if (!answers.has(key)) answers.set(key, []);
    answers.get(key)!.push(t);
  };
  for (const [h, r, t] of all) {
    const [hid, rel, tid] = [entity.get(h), relation.get(r), entity.get(t)];
    if (hid === undefined || rel === undefined || tid === undefined) continue;
    add(hid, rel, tid);
    add(tid, grown.reverseRelation(rel), hid);
  }
  const heads: number[] = [];
  const rels: number[] = [];
  for (const [h, r, t] of edges) {
    const [hid, rel, tid] = [entity.get(h), relation.get(r), entity.get(t)];
    if (hid === undefined || rel === undefined || tid === undefined) continue;
    heads.push(hid, tid);
    rels.push(rel, grown.reverseRelation(rel));
  }
  const excludes = heads.map((h, i) => Uint32Array.from(answers.get(`${h}\t${rels[i]}`) ?? []));
  const top = grown.topKBatch(Uint32Array.from(heads), Uint32Array.from(rels), 10, excludes);
  const folded = top.entities.filter((e) => e >= firstFolded).length;
  return {
    top10: folded / Math.max(1, top.entities.length),
    entities: (grown.entities.length - firstFolded) / grown.entities.length,
  };
}

/** A 95% bootstrap interval of the MRR over entities: `ranks[i]` belongs to `owner[i]`. */
export function bootstrapMrr(
  ranks: number[],
  owner: string[],
  seed: number,
  rounds = 1000,
): [number, number] {
  const byEntity = new Map<string, number[]>();
  ranks.forEach((r, i) => {
    const e = owner[i]!;
    if (!byEntity.has(e)) byEntity.set(e, []);
    byEntity.get(e)!.push(Number.isFinite(r) ? 1 / r : 0);
  });
  const groups = [...byEntity.values()];
  const next = seededRandom(seed);
  const mrrs: number[] = [];
  for (let b = 0; b < rounds; b++) {
    let [sum, count] = [0, 0];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[Math.floor(next() * groups.length)]!;
      for (const v of g) sum += v;
      count += g.length;
    }
    mrrs.push(sum / Math.max(1, count));
  }
  mrrs.sort((a, b) => a - b);
  return [mrrs[Math.floor(0.025 * rounds)]!, mrrs[Math.floor(0.975 * rounds)]!];
}

/** `edges` in `model`'s ids, flat [h, r, t, ...] (edges it cannot name dropped). */
export function modelIds(model: Native.NeptuneModel, edges: Named[]): Uint32Array {
  const entity = new Map(model.entities.map((e, i) => [e, i]));
  const relation = new Map(model.relations.map((r, i) => [r, i]));
  const out: number[] = [];
  for (const [h, r, t] of edges) {
    const [hid, rel, tid] = [entity.get(h), relation.get(r), entity.get(t)];
    if (hid !== undefined && rel !== undefined && tid !== undefined) out.push(hid, rel, tid);
  }
  return Uint32Array.from(out);
}

/** The graph of `train` in `model`'s ids, as a version's graph.bin gives it to serving. */
export async function versionGraph(
  model: Native.NeptuneModel,
  train: Named[],
): Promise<GraphIndex> {
  const entity = new Map(model.entities.map((e, i) => [e, i]));
  const relation = new Map(model.relations.map((r, i) => [r, i]));
  const heads: number[] = [];
  const rels: number[] = [];
  const tails: number[] = [];
  for (const [h, r, t] of train) {
    const [hid, rel, tid] = [entity.get(h), relation.get(r), entity.get(t)];
    if (hid === undefined || rel === undefined || tid === undefined) continue;
    heads.push(hid);
    rels.push(rel);
    tails.push(tid);
  }
  return GraphIndex.build(
    model.entities.length,
    model.relations.length,
    Int32Array.from(heads),
    Int32Array.from(rels),
    Int32Array.from(tails),
    new EventLoopTurns(),
  );
}
