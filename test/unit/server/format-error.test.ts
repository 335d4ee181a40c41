import { GraphQLError } from 'graphql';
import { ErrorCode, KgcError } from '../../../src/errors';
import { createFormatError } from '../../../src/server/format-error';

const formatted = (message: string, code?: string) => ({
  message,
  extensions: { ...(code ? { code } : {}), stacktrace: ['Error: x', '    at /srv/app/x.ts:1:1'] },
});

describe('formatError', () => {
  const plain = createFormatError(false);
  const debug = createFormatError(true);

  it('keeps our codes and messages, without stack traces', () => {
    const error = new KgcError(ErrorCode.ENTITY_NOT_FOUND, 'Argument entity: no entity "x".');
    const out = plain(formatted('x'), new GraphQLError('x', { originalError: error, path: ['q'] }));
    expect(out).toEqual({ message: error.message, extensions: { code: 'ENTITY_NOT_FOUND' } });
  });

  it('replaces internal messages (driver text, URIs) unless debugging', () => {
    const error = new KgcError(
      ErrorCode.DATABASE_UNAVAILABLE,
      'Neo4j at bolt://10.0.0.5:7687 is unavailable (connect ECONNREFUSED).',
    );
    const wrapped = new GraphQLError('x', { originalError: error, path: ['q'] });
    const out = plain(formatted('x'), wrapped);
    expect(out.message).toBe('The database is unavailable; try again shortly.');
    expect(out.extensions).toEqual({ code: 'DATABASE_UNAVAILABLE' });
    const shown = debug(formatted('x'), wrapped);
    expect(shown.message).toContain('bolt://10.0.0.5');
    expect(shown.extensions?.stacktrace).toBeDefined();
  });

  it('turns unknown errors into INTERNAL and keeps GraphQL codes', () => {
    const out = plain(
      formatted('TypeError: boom at /srv/app/x.ts', 'INTERNAL_SERVER_ERROR'),
      new Error('boom'),
    );
    expect(out.extensions).toEqual({ code: ErrorCode.INTERNAL });
    expect(out.message).not.toContain('/srv/app');
    const parse = plain(formatted('Syntax Error', 'GRAPHQL_PARSE_FAILED'), new GraphQLError('x'));
    expect(parse).toEqual({
      message: 'Syntax Error',
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
  });

  it("answers graphql-js's codeless 'too many variable errors' as BAD_USER_INPUT", () => {
    const message = 'Too many errors processing variables, error limit reached. Execution aborted.';
    const out = plain(formatted(message), new GraphQLError(message));
    expect(out).toEqual({ message, extensions: { code: ErrorCode.BAD_USER_INPUT } });
  });
});
