import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { ErrorCode, KgcError } from '../errors';
import { ModelInfo } from '../schema/model-info.type';
import { Staleness } from '../schema/staleness.type';
import type { RequestContext } from './request-context';

@Resolver((_of) => ModelInfo)
export class StalenessResolver {
  /** Read only when selected: it reads Neo4j's counts (and, when they moved, scans entities). */
  @FieldResolver((_type) => Staleness, {
    description:
      'What the graph holds that the serving version was not trained on (kgc_stale_* on /metrics)',
  })
  async staleness(@Root() info: ModelInfo, @Ctx() context: RequestContext): Promise<Staleness> {
    // The model taken when the request started: the same version as the rest of the answer.
    const { model, staleness } = context;
    if (!model || model.version !== info.version || !staleness) {
      throw new KgcError(
        ErrorCode.INTERNAL,
        'Staleness is not available in this server (no tracker in the request context).',
      );
    }
    return staleness.read(model);
  }
}
