import { getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { buildGraphQLSchema } from '../../../src/server/graphql-schema';
import {
  MAX_INTROSPECTION_DEPTH,
  maxIntrospectionDepthRule,
} from '../../../src/server/introspection-depth';

const schema = buildGraphQLSchema();
const errorsOf = (query: string) =>
  validate(schema, parse(query), [...specifiedRules, maxIntrospectionDepthRule()]).map(
    (e) => e.message,
  );

/** `__schema { types { fields { type { ofType { ... name } } } } }`, `n` ofType deep. */
function nestedOfType(n: number): string {
  return `{ __schema { types { fields { type { ${'ofType { '.repeat(n)}name${' }'.repeat(n)} } } } } }`;
}

describe('the introspection depth limit', () => {
  it('admits the standard introspection query that tools send', () => {
    expect(errorsOf(getIntrospectionQuery())).toEqual([]);
    expect(
      errorsOf(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true })),
    ).toEqual([]);
  });

  it('refuses a __schema selection nested past the limit, which the other rules let through', () => {
    // __schema, types, fields, type: 4 levels, then ofType levels, then name.
    const atLimit = nestedOfType(MAX_INTROSPECTION_DEPTH - 5);
    const deep = nestedOfType(200);
    expect(validate(schema, parse(deep), specifiedRules)).toEqual([]); // graphql-js alone: allowed
    expect(errorsOf(atLimit)).toEqual([]);
    expect(errorsOf(nestedOfType(MAX_INTROSPECTION_DEPTH - 4))).toEqual([
      expect.stringMatching(/^Introspection depth limit of 20 exceeded/),
    ]);
    expect(errorsOf(deep)).toEqual([expect.stringMatching(/Introspection depth limit/)]);
  });

  it('follows fragments, and counts each once (a fan-out of spreads stays fast)', () => {
    const viaFragments = `{ __schema { types { ...T } } }
      fragment T on __Type { fields { type { ...R } } }
      fragment R on __Type { ${'ofType { '.repeat(30)}name${' }'.repeat(30)} }`;
    expect(errorsOf(viaFragments)).toEqual([expect.stringMatching(/Introspection depth limit/)]);

    // F0 spreads F1 twice, F1 spreads F2 twice...: 2^40 paths if each spread were walked.
    const levels = 40;
    const fragments = Array.from(
      { length: levels },
      (_, i) => `fragment F${i} on __Type { ofType { ...F${i + 1} } ofType { ...F${i + 1} } }`,
    ).join('\n');
    const fanOut = `{ __schema { types { ...F0 } } }\n${fragments}\nfragment F${levels} on __Type { name }`;
    const started = Date.now();
    const rule = maxIntrospectionDepthRule();
    const errors = validate(schema, parse(fanOut), [rule]).map((e) => e.message);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(errors).toEqual([expect.stringMatching(/Introspection depth limit/)]);
  });

  it('ends on a fragment cycle (reported by its own rule)', () => {
    const cycle = `{ __schema { types { ...A } } }
      fragment A on __Type { ofType { ...B } }
      fragment B on __Type { ofType { ...A } }`;
    const errors = errorsOf(cycle);
    expect(errors.some((m) => /Cannot spread fragment "A" within itself/.test(m))).toBe(true);
  });

  it('leaves queries without __schema alone', () => {
    expect(errorsOf('{ __type(name: "Query") { name } __typename }')).toEqual([]);
  });
});
