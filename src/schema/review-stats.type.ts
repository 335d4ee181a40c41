import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType({
  description: 'Decisions on suggestions whose probability at decision time fell in [from, to)',
})
export class ReviewBucket {
  @Field((_type) => Float)
  from!: number;

  @Field((_type) => Float, { description: 'Exclusive, except 1 for the last bucket' })
  to!: number;

  @Field((_type) => Int)
  accepted!: number;

  @Field((_type) => Int)
  rejected!: number;

  @Field((_type) => Float, {
    nullable: true,
    description: 'accepted / (accepted + rejected); null without decisions',
  })
  acceptanceRate!: number | null;

  @Field((_type) => Float, {
    nullable: true,
    description: 'Mean probability of the decided suggestions; null without decisions',
  })
  meanProbability!: number | null;
}

@ObjectType({
  description: "Decisions on a relation's suggestions, and how well the probabilities held",
})
export class ReviewStats {
  @Field((_type) => String)
  relation!: string;

  /** Counts the relation's undecided suggestions (one graph read over all of them). */
  countPending!: () => Promise<number>;

  @Field((_type) => Int)
  accepted!: number;

  @Field((_type) => Int)
  rejected!: number;

  @Field((_type) => [ReviewBucket], { description: '10 equal probability buckets, lowest first' })
  buckets!: ReviewBucket[];
}
