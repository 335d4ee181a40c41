import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum ReasonKind {
  PATH = 'path',
  SIMILAR_ENTITY = 'similar_entity',
}

registerEnumType(ReasonKind, {
  name: 'ReasonKind',
  description:
    'PATH: a path in the graph that instantiates a mined rule; SIMILAR_ENTITY: a known edge of the relation whose other end lies near the query entity in the model (used where no rule fires)',
});

@ObjectType({ description: 'An edge of the graph, by entity ids' })
export class ReasonEdge {
  @Field((_type) => String)
  head!: string;

  @Field((_type) => String)
  relation!: string;

  @Field((_type) => String)
  tail!: string;
}

@ObjectType({ description: 'One step of a rule body' })
export class RuleStep {
  @Field((_type) => String)
  relation!: string;

  @Field((_type) => Boolean, { description: 'true: the edge is walked from its tail to its head' })
  inverse!: boolean;
}

@ObjectType({
  description: 'A path rule mined from the graph when the model version was trained',
})
export class ReasonRule {
  @Field((_type) => String, { description: 'The relation the rule predicts' })
  relation!: string;

  @Field((_type) => [RuleStep], { description: 'The path from head to tail, 1 to 3 steps' })
  body!: RuleStep[];

  @Field((_type) => Int, { description: 'Edges of the relation that the body explains' })
  support!: number;

  @Field((_type) => Float, {
    description: 'Share of the body paths whose ends are linked by the relation (0 to 1)',
  })
  confidence!: number;

  @Field((_type) => String, { description: 'The rule as text, e.g. "a(x,z) ∧ b(z,y) ⇒ r(x,y)"' })
  text!: string;
}

@ObjectType({ description: 'Why the model may have suggested an edge' })
export class Reason {
  @Field((_type) => ReasonKind)
  kind!: ReasonKind;

  @Field((_type) => ReasonRule, { nullable: true, description: 'The rule (PATH only)' })
  rule!: ReasonRule | null;

  @Field((_type) => [ReasonEdge], {
    description: 'PATH: the path from head to tail; SIMILAR_ENTITY: the one known edge',
  })
  edges!: ReasonEdge[];

  @Field((_type) => Float, {
    nullable: true,
    description:
      'SIMILAR_ENTITY only: cosine similarity (-1 to 1) of the edge’s other end to the query entity in the model',
  })
  similarity!: number | null;
}
