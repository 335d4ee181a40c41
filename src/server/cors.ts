import type http from 'node:http';

/**
 * CORS for the configured origins only (KGC_CORS_ORIGINS; `*` allows any). Without a match no
 * header is set, and browsers keep other origins out.
 */
export function setCorsHeaders(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  allowed: readonly string[],
): void {
  const origin = request.headers.origin;
  if (!origin || allowed.length === 0) return;
  if (!allowed.includes('*') && !allowed.includes(origin)) return;
  response.setHeader('access-control-allow-origin', allowed.includes('*') ? '*' : origin);
  response.setHeader('vary', 'Origin');
  response.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
  response.setHeader(
    'access-control-allow-headers',
    'authorization, content-type, apollo-require-preflight, x-request-id',
  );
  response.setHeader('access-control-max-age', '600');
}
