/**
 * Answers written straight to a socket, for requests that never became a request object (the
 * parser rejected them) or were cut short: the mirror's error body, `Connection: close`, then the
 * connection ends.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorAnswer } from './errorCatalog.ts';
import { JSON_TYPE } from './respond.ts';

/**
 * The whole HTTP/1.1 response text of an error answer (errorCatalog.ts), always with
 * `Connection: close`; the answer to a HEAD request (`head`) has the same headers and no body.
 */
export function rawErrorAnswer(answer: ErrorAnswer, head = false): string {
  const { status, body, retryAfter } = answer;
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    `Content-Type: ${JSON_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(retryAfter === undefined ? [] : [`Retry-After: ${retryAfter}`]),
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${head ? '' : body}`;
}

/** How long a socket that was answered and ended may stay open for the client to read the answer and close. */
const CLOSE_AFTER_MS = 1000;

/**
 * Writes `answer` and ends the socket (FIN after the answer, never a reset while the client may
 * still be sending: its input is read and dropped until it closes), destroyed at the latest one
 * second later. Does nothing on a socket that is already ending.
 */
export function answerAndClose(socket: Socket, answer: string): void {
  if (socket.destroyed || socket.writableEnded) return;
  socket.end(answer);
  setTimeout(() => socket.destroy(), CLOSE_AFTER_MS).unref();
}
