import type { ServingModel } from '../model';
import type { PathEdge } from '../graph';
import { Reason, ReasonKind } from '../schema/reason.type';
import type { Asked } from './reason-items';

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

export interface Similar {
  id: string;
  similarity: number;
}

/**
 * Per item (by position), its candidates (other ends of the suggested entity's known edges of
 * the relation) ranked by how near they lie to the query entity in the model's embedding space,
 * nearest first. One engine call per model for every vector the batch needs.
 */
export function rankSimilar(
  items: readonly Asked[],
  candidates: readonly (readonly string[])[],
): Map<number, Similar[]> {
  const out = new Map<number, Similar[]>();
  const byModel = new Map<ServingModel, number[]>();
  items.forEach((item, i) => {
    if ((candidates[i]?.length ?? 0) === 0) return;
    byModel.set(item.model, [...(byModel.get(item.model) ?? []), i]);
  });
  for (const [model, members] of byModel) {
    const { scorer } = model;
    const wanted = new Set<number>();
    for (const i of members) {
      const anchor = scorer.findEntity((items[i] as Asked).query.entity);
      if (anchor === undefined) continue;
      wanted.add(anchor);
      for (const id of candidates[i] ?? []) {
        const index = scorer.findEntity(id);
        if (index !== undefined) wanted.add(index);
      }
    }
    const indices = [...wanted];
    const vectors = new Map(scorer.entityVectors(indices).map((row, j) => [indices[j], row]));
    for (const i of members) {
      const anchor = vectors.get(scorer.findEntity((items[i] as Asked).query.entity) as number);
      if (!anchor) continue;
      out.set(
        i,
        (candidates[i] ?? [])
          .map((id) => ({ id, row: vectors.get(scorer.findEntity(id) as number) }))
          .filter((c): c is { id: string; row: Float32Array } => c.row !== undefined)
          .map(({ id, row }) => ({ id, similarity: cosine(anchor, row) }))
          .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1)),
      );
    }
  }
  return out;
}

/**
 * The known edge a similar entity stands for: (h', r, t) for a tail query (h' like the query's
 * head), (h, r, t') for a head query.
 */
export function similarEdge(item: Asked, other: string): PathEdge {
  const { pair } = item;
  return pair.suggestedIsHead
    ? { head: pair.suggested, relation: pair.relation, tail: other }
    : { head: other, relation: pair.relation, tail: pair.suggested };
}

export function similarReason(item: Asked, { id, similarity }: Similar): Reason {
  return {
    kind: ReasonKind.SIMILAR_ENTITY,
    rule: null,
    edges: [similarEdge(item, id)],
    similarity,
  };
}
