import type http from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config';
import type { Logger } from './logger';

/** Drops past the connection limit are logged at most this often (one line with the count). */
const DROP_LOG_EVERY_MS = 10_000;

/**
 * Node's options for a server with these limits. Node enforces the header and request timeouts
 * on a sweep every `connectionsCheckingInterval` (30 s by default, so a 10 s header timeout could
 * hold a socket for 40 s): sweep at a quarter of the header timeout, at most every second.
 */
export function serverOptions(limits: HttpLimits): http.ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headersTimeoutMs / 4)),
  };
}

/** The HTTP answer to a client error, by Node's error code. */
function answerTo(code: string | undefined): string | undefined {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return '408 Request Timeout';
    case 'HPE_HEADER_OVERFLOW':
      return '431 Request Header Fields Too Large';
    case 'ECONNRESET':
      return undefined; // the client is gone
    default:
      return '400 Bad Request';
  }
}

/**
 * Applies the connection limit and handles what slow, broken or too many clients cause: a header
 * or body that does not arrive in time is answered 408 and its connection closed, malformed HTTP
 * 400; connections past the limit are dropped (logged, rate-limited); an `'error'` the server
 * emits after listening (EMFILE on accept, say) is logged, never thrown. Returns `track`, to be
 * called with each request, so a client error is not written over a response already started.
 */
export function guardServer(
  server: http.Server,
  limits: HttpLimits,
  logger: Logger,
): (request: http.IncomingMessage, response: http.ServerResponse) => void {
  server.maxConnections = limits.maxConnections;
  const responses = new WeakMap<Socket, http.ServerResponse>();

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    logger.debug({ err: error, code: error.code }, 'client error');
    const answer = answerTo(error.code);
    const started = responses.get(socket)?.headersSent === true;
    if (answer && !started && socket.writable) {
      socket.end(`HTTP/1.1 ${answer}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      // A client that never reads must not hold the socket: close it shortly whatever happens.
      setTimeout(() => socket.destroy(), 1000).unref();
    } else {
      socket.destroy();
    }
  });

  let dropped = 0;
  let lastDropLog = 0;
  server.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - lastDropLog >= DROP_LOG_EVERY_MS) {
      logger.warn(
        { dropped, maxConnections: limits.maxConnections },
        'connections dropped at the limit (KGC_HTTP_MAX_CONNECTIONS)',
      );
      lastDropLog = now;
      dropped = 0;
    }
  });

  server.on('error', (error: NodeJS.ErrnoException) => {
    // Errors before listening (EADDRINUSE) reject listen(); these are the ones after (accept
    // failures and the like), which would end the process if nothing listened for them.
    if (!server.listening) return;
    logger.error({ err: error, code: error.code }, 'HTTP server error; still serving');
  });

  return (request, response) => {
    responses.set(request.socket, response);
    response.on('close', () => {
      if (responses.get(request.socket) === response) responses.delete(request.socket);
    });
  };
}
