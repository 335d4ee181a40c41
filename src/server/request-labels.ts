/**
 * Metric labels of an HTTP request, each from a fixed set: a label taken from the request as sent
 * (its path, its method) would add a series per distinct value, and /metrics would grow with
 * whatever clients send.
 */
import { ApolloServerErrorCode } from '@apollo/server/errors';
import { ErrorCode } from '../errors';
import { isAdminPath } from './admin-page';

export const ROUTES = ['/graphql', '/healthz', '/readyz', '/metrics'] as const;
/** Every path of the review page (its files, and any 404 under it) counts as one route. */
const ADMIN_ROUTE = '/admin';
export const METHODS = ['GET', 'POST', 'OPTIONS', 'HEAD'] as const;
/** Label of a path or method outside the sets above. */
export const OTHER = 'other';
/** Operation label of requests that ran no GraphQL operation. */
export const NO_OPERATION = 'none';
/** Operation label of a GraphQL request with several distinct root fields. */
export const SEVERAL_OPERATIONS = 'several';

export interface RequestLabels {
  route: string;
  method: string;
  operation: string;
  status: string;
}

function oneOf(value: string | undefined, allowed: readonly string[]): string {
  return value !== undefined && allowed.includes(value) ? value : OTHER;
}

/**
 * `operation` is the request's root field names joined by commas (see graphql-server.ts): names
 * the schema validated, but their combinations are many, so several fields count as one label.
 */
export function requestLabels(
  path: string,
  method: string | undefined,
  operation: string | undefined,
  status: number,
): RequestLabels {
  return {
    route: isAdminPath(path) ? ADMIN_ROUTE : oneOf(path, ROUTES),
    method: oneOf(method, METHODS),
    operation:
      operation === undefined || operation === ''
        ? NO_OPERATION
        : operation.includes(',')
          ? SEVERAL_OPERATIONS
          : operation,
    // node:http sends only three-digit codes, and the server chooses them: a small set.
    status: String(status),
  };
}

const ERROR_CODES: ReadonlySet<string> = new Set([
  ...Object.values(ErrorCode),
  ...Object.values(ApolloServerErrorCode),
]);

/** An error code as a label: the service's and Apollo's codes, anything else `other`. */
export function errorCodeLabel(code: string): string {
  return ERROR_CODES.has(code) ? code : OTHER;
}
