/**
 * Requests the HTTP parser rejects before Fastify sees them (Node's 'clientError'): answered in
 * the reference's error body with `Connection: close`, then the connection ends. Fastify's own
 * handler answers in its shape and without `Connection: close`; Node's, with no body.
 *
 * - headers (request line included) beyond Node's 16 KiB: 431 (a URL that long too: Node has no
 *   separate 414)
 * - headers not complete within the server's headersTimeout (slow clients): 408; a connection that
 *   sent nothing at all is closed without an answer
 * - a chunk extension beyond Node's limit: 413
 * - anything unparsable (an unknown method, a malformed request line or header): 400
 *
 * CONNECT never becomes a request either: Node hands its socket to the server's 'connect' listener
 * and, without one, drops the connection unanswered. This service tunnels nothing: 400 the same way.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { answerAndClose, rawErrorAnswer } from '../answer/rawAnswer.ts';
import { httpErrors } from '../answer/errorCatalog.ts';

/** Node's error codes to statuses; anything else is 400. */
const STATUSES: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};

/** The last request line of the bytes the parser failed on: where the rejected request starts. */
const REQUEST_LINE = /(?:^|\r?\n)([A-Z]+) [^\s]+ HTTP\/\d\.\d\r?\n/g;

/**
 * True when the rejected request is a HEAD request, whose answer carries no body. Node gives the
 * bytes of the chunk it was parsing (err.rawPacket); a request line that came in an earlier chunk is
 * not in them, and the answer then has its body.
 */
function isHead(err: NodeJS.ErrnoException & { rawPacket?: unknown }): boolean {
  if (!Buffer.isBuffer(err.rawPacket)) return false;
  let method: string | undefined;
  for (const m of err.rawPacket.toString('latin1').matchAll(REQUEST_LINE)) method = m[1];
  return method === 'HEAD';
}

/** A response already under way on the socket (its headers sent): nothing may be written in between. */
const answering = (socket: Socket): boolean =>
  (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;

/** Fastify's `clientErrorHandler` (called with the Fastify instance as `this`). */
export function onClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0) {
    // a connection that never sent a byte (server.headersTimeout) is closed without an answer or a
    // line: there was no request to answer, and a crowd of them would flood the log
    socket.end();
    setTimeout(() => socket.destroy(), 1000).unref();
    return;
  }
  if (!socket.writable || answering(socket)) {
    socket.destroy();
    return;
  }
  const status = STATUSES[err.code ?? ''] ?? 400;
  // an expected failure of the client's: one line, no stack (the access line of a request that never was one)
  this.log.info({ status, code: err.code }, 'request rejected by the HTTP parser');
  answerAndClose(socket, rawErrorAnswer(httpErrors.ofStatus(status), isHead(err)));
}

/** The server's 'connect' listener (a CONNECT request): 400 in the mirror body, then the connection ends. */
export function onConnect(this: FastifyInstance, _request: IncomingMessage, socket: Socket): void {
  if (socket.destroyed) return;
  socket.on('error', () => socket.destroy());
  // what the client sends after its CONNECT head is read and dropped until the connection ends
  socket.resume();
  this.log.info({ status: 400, code: 'CONNECT' }, 'request rejected by the HTTP parser');
  answerAndClose(socket, rawErrorAnswer(httpErrors.badRequest));
}
