import 'reflect-metadata';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { authChecker, resolvers } from '../resolvers';

export function buildGraphQLSchema(): GraphQLSchema {
  return buildSchemaSync({ resolvers: [...resolvers], authChecker, validate: false });
}

/** The SDL committed as schema.graphql; a test fails when it drifts. */
export function printGraphQLSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildGraphQLSchema()))}\n`;
}
