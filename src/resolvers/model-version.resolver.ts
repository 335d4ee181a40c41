import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { listVersions } from '../graph/registry';
import type { ModelVersionRecord } from '../graph/registry';
import { readVersionDiagram } from '../model';
import { ModelVersion } from '../schema/model-version.type';
import { Viewer } from '../schema/viewer.type';
import { checkIntRange } from './arguments';
import type { RequestContext } from './request-context';

const MAX_PAGE = 100;

function objectOrNull(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function toModelVersion(v: ModelVersionRecord): ModelVersion {
  return { ...v, metrics: objectOrNull(v.metrics), gate: objectOrNull(v.gate) };
}

/** Reads for the review page: the registry's versions and who the caller is. */
@Resolver((_of) => ModelVersion)
export class ModelVersionResolver {
  @Query((_returns) => [ModelVersion], {
    description: 'Model versions of the registry, newest first, with their metrics and diagrams',
  })
  async modelVersions(
    @Arg('first', (_type) => Int, { defaultValue: 20, description: `1 to ${MAX_PAGE}` })
    first: number,
    @Ctx() context: RequestContext,
  ): Promise<ModelVersion[]> {
    checkIntRange('first', first, 1, MAX_PAGE);
    const versions = await listVersions(context.db, context.registryScope);
    return versions.slice(0, first).map(toModelVersion);
  }

  @FieldResolver((_type) => String, {
    nullable: true,
    description:
      'The training curve (loss and validation MRR per epoch) as SVG text; null when the files were pruned',
  })
  trainingCurveSvg(@Root() version: ModelVersion): string | null {
    return readVersionDiagram(version.dir, 'trainingCurve');
  }

  @FieldResolver((_type) => String, {
    nullable: true,
    description:
      'The reliability diagram of its calibration as SVG text; null for a version without calibration',
  })
  reliabilitySvg(@Root() version: ModelVersion): string | null {
    return readVersionDiagram(version.dir, 'reliability');
  }

  @Query((_returns) => Viewer, {
    nullable: true,
    description: 'The API key that sent this request (name and role), or null when anonymous',
  })
  viewer(@Ctx() context: RequestContext): Viewer | null {
    return context.caller ? { name: context.caller.name, role: context.caller.role } : null;
  }
}
