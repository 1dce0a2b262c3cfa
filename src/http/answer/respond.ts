import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Answer, weakEtag } from './answer.ts';
import type { ErrorAnswer } from './errorCatalog.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** True when the request's If-None-Match names this ETag (weak comparison) or is "*". */
function isFresh(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bare);
}

/** Content type and ETag; Vary is the compression stage's (server/plugins/vary.ts). */
function common(reply: FastifyReply, body: Buffer, etag = weakEtag(body)): string {
  reply.header('content-type', JSON_TYPE).header('etag', etag);
  return etag;
}

/**
 * A route's answer, fresh or replayed by the response cache (the same bytes and headers either
 * way), with the reference's headers; 304 when the client's ETag matches.
 */
export function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: Answer): FastifyReply {
  common(reply, answer.body, answer.etag);
  reply.header('cache-control', answer.cacheControl);
  if (answer.link !== undefined) reply.header('link', answer.link);
  if (answer.indexedThrough !== undefined) reply.header('indexed-through', answer.indexedThrough);
  if (isFresh(request, answer.etag)) {
    reply.removeHeader('content-type');
    return reply.code(304).send();
  }
  return reply.code(answer.status).send(answer.body);
}

/**
 * The status and headers of an error answer (errorCatalog.ts) set on `reply`, its Retry-After and
 * Connection before the content type; its body returned, to be sent.
 */
export function prepareError(reply: FastifyReply, answer: ErrorAnswer): Buffer {
  if (answer.retryAfter !== undefined) reply.header('retry-after', String(answer.retryAfter));
  if (answer.close) reply.header('connection', 'close');
  const body = Buffer.from(answer.body, 'utf8');
  common(reply, body);
  reply.removeHeader('cache-control');
  reply.removeHeader('link');
  reply.code(answer.status);
  return body;
}

/** An error answer (errorCatalog.ts): {"_status":{"messages":[...]}}, no cache-control. */
export function sendError(reply: FastifyReply, answer: ErrorAnswer): FastifyReply {
  return reply.send(prepareError(reply, answer));
}
