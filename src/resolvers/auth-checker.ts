import type { AuthChecker } from 'type-graphql';
import { ErrorCode, KgcError } from '../errors';
import type { RequestContext } from './request-context';

/**
 * `@Authorized(Role.ADMIN)` on an operation. Without a key: UNAUTHENTICATED when keys are
 * configured, FORBIDDEN when none are (mutations are then off for everyone). With a key whose
 * role is not listed: FORBIDDEN. (Whether a request may read at all is decided per request,
 * before GraphQL runs: see src/server/authenticate.ts.)
 */
export const authChecker: AuthChecker<RequestContext> = ({ context }, roles) => {
  if (roles.length === 0) return true;
  const { caller } = context;
  if (!caller) {
    if (context.keysConfigured) {
      throw new KgcError(
        ErrorCode.UNAUTHENTICATED,
        `This operation needs an API key with role ${roles.join(' or ')}: send "Authorization: Bearer <key>".`,
      );
    }
    throw new KgcError(
      ErrorCode.FORBIDDEN,
      'Mutations are off: no API keys are configured. Create an admin key with `npx kgc apikey create --name <name> --role admin` and set KGC_API_KEYS.',
    );
  }
  if (!(roles as string[]).includes(caller.role)) {
    throw new KgcError(
      ErrorCode.FORBIDDEN,
      `The key "${caller.name}" has role ${caller.role}; this operation needs role ${roles.join(' or ')}.`,
    );
  }
  return true;
};
