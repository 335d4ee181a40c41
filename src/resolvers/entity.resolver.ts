import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { relationCounts } from '../graph';
import { Entity } from '../schema/entity.type';
import { RelationInfo } from '../schema/relation-info.type';
import { checkId } from './arguments';
import type { RequestContext } from './request-context';

@Resolver((_of) => Entity)
export class EntityResolver {
  @Query((_returns) => Entity, { nullable: true, description: 'An entity of the graph, or null' })
  async entity(
    @Arg('id', (_type) => String) id: string,
    @Ctx() context: RequestContext,
  ): Promise<Entity | null> {
    checkId('id', id);
    const found = await context.loaders.entity.load(id);
    return found ?? null;
  }

  @Query((_returns) => [RelationInfo], {
    description: 'Relations of the graph (with edge counts) and of the serving model, by name',
  })
  async relations(@Ctx() context: RequestContext): Promise<RelationInfo[]> {
    const inGraph = await relationCounts(context.db);
    const inModel = new Set(context.model?.scorer.relations ?? []);
    const rows = new Map<string, RelationInfo>();
    for (const { name, edgeCount } of inGraph)
      rows.set(name, { name, edgeCount, inModel: inModel.has(name) });
    for (const name of inModel)
      if (!rows.has(name)) rows.set(name, { name, edgeCount: 0, inModel: true });
    return [...rows.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  @FieldResolver((_type) => GraphQLJSONObject)
  async properties(
    @Root() entity: Entity,
    @Ctx() context: RequestContext,
  ): Promise<Record<string, unknown>> {
    if (entity.properties) return entity.properties;
    return (await context.loaders.entity.load(entity.id))?.properties ?? {};
  }
}
