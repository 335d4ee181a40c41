import { Field, Float, ObjectType } from 'type-graphql';

@ObjectType({
  description:
    'An edge (head, relation, tail) as the serving model scores it. logit, probability and rank are null when the model cannot score the edge; each such field then carries the edge\'s error (code and message) at its path ["edgeProbabilities", index, field]',
})
export class EdgeProbability {
  @Field((_type) => String, { description: 'Head entity id' })
  head!: string;

  @Field((_type) => String)
  relation!: string;

  @Field((_type) => String, { description: 'Tail entity id' })
  tail!: string;

  @Field((_type) => Float, {
    nullable: true,
    description:
      "The served score (a logit) of the tail question (head, relation, ?) for this tail (the model's, plus its rules' evidence where the version combines them): the logit missingLinks lists it with",
  })
  logit!: number | null;

  @Field((_type) => Float, {
    nullable: true,
    description:
      'The logit of the head question (tail, relation reversed, ?) for this head: the logit missingLinks(entity: tail, direction: HEAD) lists the head with',
  })
  headLogit!: number | null;

  @Field((_type) => Float, {
    nullable: true,
    description:
      "The probability that the edge is true, from both questions' logits through the version's edge calibrators (docs/api.md). It can differ from missingLinks' probability, which calibrates its own question's logit alone so that it follows the list's order. A version without edge calibrators reports the tail question's probability; one without calibration sigmoid(logit)",
  })
  probability!: number | null;

  @Field((_type) => Float, {
    nullable: true,
    description:
      "The tail's filtered rank among all entities for (head, relation, ?), as missingLinks would rank it: the head itself, the other tails of (head, relation, ?) in the graph now and the rejected ones are left out (never the tail itself); ties count half (1 + #higher + #ties / 2)",
  })
  rank!: number | null;

  @Field((_type) => Boolean, { description: 'The edge is in the graph now' })
  exists!: boolean;

  @Field((_type) => Boolean, { description: 'A person rejected this edge as a prediction' })
  rejected!: boolean;

  @Field((_type) => String, { description: 'The model version that scored it' })
  modelVersion!: string;
}
