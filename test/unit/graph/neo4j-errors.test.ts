import { Neo4jError } from 'neo4j-driver';
import { ErrorCode, KgcError } from '../../../src/errors';
import { mapNeo4jError } from '../../../src/graph';

describe('mapNeo4jError', () => {
  it.each([
    ['ServiceUnavailable', ErrorCode.DATABASE_UNAVAILABLE],
    ['SessionExpired', ErrorCode.DATABASE_UNAVAILABLE],
    ['Neo.ClientError.Security.Unauthorized', ErrorCode.DATABASE_AUTH_FAILED],
    ['Neo.ClientError.Schema.ConstraintValidationFailed', ErrorCode.CONSTRAINT_VIOLATION],
    ['Neo.ClientError.Database.DatabaseNotFound', ErrorCode.DATABASE_UNAVAILABLE],
    ['Neo.ClientError.Statement.SyntaxError', ErrorCode.DATABASE_ERROR],
  ])('maps %s to %s', (code, expected) => {
    const mapped = mapNeo4jError(new Neo4jError('boom', code, 'gql', 'desc'), 'bolt://x');
    expect(mapped).toBeInstanceOf(KgcError);
    expect(mapped.code).toBe(expected);
  });

  it('keeps a KgcError as it is', () => {
    const original = new KgcError(ErrorCode.NOT_FOUND, 'nope');
    expect(mapNeo4jError(original, 'bolt://x')).toBe(original);
  });
});
