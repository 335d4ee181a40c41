import type http from 'node:http';
import { ErrorCode, KgcError } from '../errors';

/** The request body as text; over `limit` bytes it is refused (PAYLOAD_TOO_LARGE) unread. */
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
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
