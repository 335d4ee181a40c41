import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({
  description:
    'How far the graph has moved on since the serving version was trained: what a retraining would take in',
})
export class Staleness {
  @Field((_type) => Int, {
    description:
      "Entities with at least one edge (of the version's relations, when it was trained on some only) that the version's vocabulary lacks: ingested or connected after its snapshot. Folded-in entities count here too until a retraining takes them in",
  })
  newEntities!: number;

  @Field((_type) => Int, {
    nullable: true,
    description:
      "Edges in the graph (of the version's relations, when it was trained on some only) beyond the edges of its training snapshot: edges added since, net of edges removed. Null when the serving directory records no snapshot (a `kgc train --out` folder)",
  })
  newEdges!: number | null;

  @Field((_type) => Int, {
    description: 'New entities answered by fold-in for this version (0 without fold-in)',
  })
  foldedIn!: number;

  @Field((_type) => Int, {
    description:
      "New entities whose fold-in was held back: folding them in would have lowered the version's MRR on its held-out known edges by more than KGC_FOLD_IN_MAX_HARM; they answer ENTITY_NOT_IN_MODEL until their edges change or a retraining",
  })
  foldInHeldBack!: number;

  @Field((_type) => Int, {
    description:
      'New entities not folded in because this version holds KGC_FOLD_IN_MAX_ENTITIES folded entities already; they answer ENTITY_NOT_IN_MODEL until a retraining',
  })
  foldInOverCapacity!: number;

  @Field((_type) => String, { description: 'The serving version these counts are against' })
  sinceVersion!: string;
}
