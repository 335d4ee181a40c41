import type { TrainingArrays } from '../model';

/** Finds a name's id in a model's vocabularies (the scorer's lookups). */
export interface ModelVocabulary {
  findEntity(id: string): number | undefined;
  findRelation(name: string): number | undefined;
}

/**
 * Maps a split's flat [h, r, t, ...] triples from the snapshot's ids to the model's: the engine
 * may order its vocabularies its own way, so every id goes through the names. Triples naming
 * what the model lacks are left out. Typed throughout: a split holds millions of edges at scale.
 */
export function toModelIds(
  vocabulary: ModelVocabulary,
  data: Pick<TrainingArrays, 'entities' | 'relations'>,
): (flat: ArrayLike<number>) => Uint32Array {
  const entityId = Int32Array.from(data.entities, (id) => vocabulary.findEntity(id) ?? -1);
  const relationId = Int32Array.from(data.relations, (name) => vocabulary.findRelation(name) ?? -1);
  return (flat) => {
    const out = new Uint32Array(flat.length);
    let n = 0;
    for (let i = 0; i < flat.length; i += 3) {
      const h = entityId[flat[i] as number] as number;
      const r = relationId[flat[i + 1] as number] as number;
      const t = entityId[flat[i + 2] as number] as number;
      if (h < 0 || r < 0 || t < 0) continue;
      out[n++] = h;
      out[n++] = r;
      out[n++] = t;
    }
    return n === out.length ? out : out.slice(0, n);
  };
}
