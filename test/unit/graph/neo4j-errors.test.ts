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

  it.each([
    ['Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration', false],
    ['Neo.ClientError.Transaction.TransactionTimedOut', false],
    ['Neo.ClientError.Transaction.LockClientStopped', true],
    ['Neo.TransientError.Transaction.Terminated', true],
  ])('maps %s to DATABASE_TIMEOUT, saying nothing was written', (code, needsSpentBudget) => {
    const error = new Neo4jError('terminated', code, 'gql', 'desc');
    const mapped = mapNeo4jError(error, 'bolt://x', { ms: 800, spent: true });
    expect(mapped).toMatchObject({
      code: ErrorCode.DATABASE_TIMEOUT,
      message: expect.stringMatching(/within 800 ms; the server rolled it back, so nothing/),
    });
    expect(mapped.message).not.toContain('bolt://x');
    // Terminated before the budget ran out: an operator or a shutdown, not our timeout.
    const early = mapNeo4jError(error, 'bolt://x', { ms: 800, spent: false });
    expect(early.code).toBe(
      needsSpentBudget ? ErrorCode.DATABASE_ERROR : ErrorCode.DATABASE_TIMEOUT,
    );
  });

  it('keeps a KgcError as it is', () => {
    const original = new KgcError(ErrorCode.NOT_FOUND, 'nope');
    expect(mapNeo4jError(original, 'bolt://x')).toBe(original);
  });
});
