import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'The model that answers missingLinks' })
export class ModelInfo {
  @Field((_type) => String, { description: 'The model version (Prediction.modelVersion)' })
  version!: string;

  @Field((_type) => String, { description: "The model directory's name" })
  source!: string;

  @Field((_type) => Int, { description: 'Epochs the weights were trained' })
  epoch!: number;

  @Field((_type) => Float, { nullable: true, description: 'Validation MRR of these weights' })
  validMrr!: number | null;

  @Field((_type) => Int)
  entityCount!: number;

  @Field((_type) => Int)
  relationCount!: number;
}
