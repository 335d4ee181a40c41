import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { EdgeInput } from '../schema/edge.input';
import { EdgeProbability } from '../schema/edge-probability.type';
import { servingModel } from './arguments';
import {
  answerEdgeProbabilities,
  checkEdgeArgs,
  EdgeAnswer,
  MAX_EDGES,
} from './edge-probabilities';
import type { RequestContext } from './request-context';
import { modelKnowing } from './fold-in-wait';

@Resolver()
export class EdgeProbabilityResolver {
  @Query((_returns) => [EdgeProbability], {
    description: `Any edges' probability of being true (calibrated from the logits of both questions, (head, relation, ?) and (tail, relation reversed, ?)), both logits and the tail's filtered rank (as missingLinks would rank it), whether each is in the graph now and whether a person rejected it; up to ${MAX_EDGES} edges per call, answered in order. An edge the model cannot score gets null numbers, each with the edge's error`,
  })
  async edgeProbabilities(
    @Arg('edges', (_type) => [EdgeInput]) edges: EdgeInput[],
    @Ctx() context: RequestContext,
  ): Promise<EdgeAnswer[]> {
    checkEdgeArgs(edges);
    const model = await modelKnowing(
      context,
      servingModel(context.model),
      edges.flatMap((edge) => [edge.head, edge.tail]),
    );
    return answerEdgeProbabilities(context.db, model, edges, context.metrics);
  }
}
