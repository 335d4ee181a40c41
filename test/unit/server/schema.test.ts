import fs from 'node:fs';
import path from 'node:path';
import { printGraphQLSchema } from '../../../src/server/graphql-schema';

describe('schema.graphql', () => {
  it('matches the schema the resolvers emit (run `npx kgc schema` after changing them)', () => {
    const committed = fs.readFileSync(path.resolve(__dirname, '../../../schema.graphql'), 'utf8');
    expect(printGraphQLSchema()).toBe(committed);
  });
});
