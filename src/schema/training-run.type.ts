import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One retraining job: its progress while it runs, its outcome after' })
export class TrainingRun {
  @Field((_type) => ID)
  id!: string;

  @Field((_type) => String, {
    description:
      'running, succeeded, rejected (the gate kept the active version), skipped, failed or interrupted',
  })
  status!: string;

  @Field((_type) => String, { description: 'What started it: manual, schedule, request, ...' })
  trigger!: string;

  @Field((_type) => String, { nullable: true, description: 'The phase it is in (or failed in)' })
  phase!: string | null;

  @Field((_type) => Int, { nullable: true })
  epoch!: number | null;

  @Field((_type) => Int, { nullable: true })
  epochs!: number | null;

  @Field((_type) => Float, { nullable: true })
  loss!: number | null;

  @Field((_type) => Float, { nullable: true })
  validMrr!: number | null;

  @Field((_type) => Float, { nullable: true, description: 'Seconds left, estimated' })
  etaSeconds!: number | null;

  @Field((_type) => String)
  startedAt!: string;

  @Field((_type) => String, { nullable: true })
  endedAt!: string | null;

  @Field((_type) => String, { nullable: true, description: 'The error code when it failed' })
  errorCode!: string | null;

  @Field((_type) => String, { nullable: true, description: 'The model version it produced' })
  version!: string | null;

  @Field((_type) => Boolean, { nullable: true })
  promoted!: boolean | null;

  @Field((_type) => Float, {
    nullable: true,
    description: "The candidate's MRR under the promotion gate",
  })
  candidateMrr!: number | null;

  @Field((_type) => Float, {
    nullable: true,
    description: "The active version's MRR on the same held-out edges",
  })
  activeMrr!: number | null;

  @Field((_type) => GraphQLJSONObject, { nullable: true, description: 'Seconds per phase' })
  timings!: Record<string, number> | null;
}

@ObjectType({ description: 'A page of training runs, newest first' })
export class TrainingRunPage {
  @Field((_type) => [TrainingRun])
  items!: TrainingRun[];

  @Field((_type) => String, { nullable: true })
  endCursor!: string | null;

  @Field((_type) => Boolean)
  hasMore!: boolean;
}

@ObjectType({ description: 'A recorded request for retraining; the worker picks it up' })
export class RetrainRequest {
  @Field((_type) => ID)
  id!: string;

  @Field((_type) => String)
  requestedAt!: string;
}
