import type http from 'node:http';
import { ErrorCode, KgcError } from '../errors';

/**
 * The request body as text; over `limit` bytes it is refused (PAYLOAD_TOO_LARGE) unread, and one
 * cut off (BAD_REQUEST) is an answer, not an internal error.
 */
export async function readBody(request: http.IncomingMessage, limit: number): Promise<string> {
  const tooLarge = () =>
    new KgcError(
      ErrorCode.PAYLOAD_TOO_LARGE,
      `The request body is over the limit of ${limit} bytes (KGC_MAX_BODY_BYTES).`,
    );
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > limit) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof KgcError) throw error;
    // The connection closed mid-body: the client went away, or sent too slowly and the
    // server's request timeout closed it (it was answered 408 then).
    throw new KgcError(
      ErrorCode.BAD_REQUEST,
      'The request body was not received in full (the connection closed before it ended; KGC_HTTP_REQUEST_TIMEOUT_MS bounds how long it may take).',
    );
  }
  return Buffer.concat(chunks).toString('utf8');
}
