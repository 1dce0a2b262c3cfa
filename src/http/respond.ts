import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './errors.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Express-compatible weak ETag: W/"<byte length hex>-<first 27 chars of base64 sha1>". */
export function weakEtag(body: string): string {
  const length = Buffer.byteLength(body, 'utf8');
  if (length === 0) return 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  const hash = createHash('sha1').update(body, 'utf8').digest('base64').slice(0, 27);
  return `W/"${length.toString(16)}-${hash}"`;
}

/** True when the request's If-None-Match names this ETag (weak comparison) or is "*". */
function isFresh(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bare);
}

function common(reply: FastifyReply, body: string): string {
  const etag = weakEtag(body);
  reply.header('content-type', JSON_TYPE).header('vary', 'Accept-Encoding').header('etag', etag);
  return etag;
}

/** A successful JSON response with the reference's headers; 304 when the client's ETag matches. */
export function sendJson(
  request: FastifyRequest,
  reply: FastifyReply,
  body: string,
  headers: Record<string, string>,
): FastifyReply {
  const etag = common(reply, body);
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  if (isFresh(request, etag)) {
    reply.removeHeader('content-type');
    return reply.code(304).send();
  }
  return reply.code(200).send(body);
}

/** An error response: {"_status":{"messages":[...]}}, no cache-control. */
export function sendError(reply: FastifyReply, status: number, messages: readonly string[]): FastifyReply {
  const body = errorBody(messages);
  common(reply, body);
  reply.removeHeader('cache-control');
  reply.removeHeader('link');
  return reply.code(status).send(body);
}
