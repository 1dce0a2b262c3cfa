/**
 * JSON-RPC over one WebSocket connection, for the differential test: a message sent, the next
 * message that is not a subscription notification taken as its answer (the cases wait for each
 * answer before the next message, so answers cannot cross). A message that may have no answer (a
 * notification, as JSON-RPC calls a request without id) is given NO_ANSWER_MS, every other the
 * timeout; no answer by then is the reply NO_REPLY.
 */
import WebSocket from 'ws';
import type { Reply } from './jsonRpc.ts';

/** How long a message may stay unanswered before it counts as one without an answer. */
const NO_ANSWER_MS = 1500;

/** The text of a reply to a message that got none within NO_ANSWER_MS (the same on both sides compares equal). */
export const NO_REPLY = '(no answer)';

export interface WsSide {
  /** Sends `body` (a request, a batch, or a raw string as is) and waits for its answer; status 200 for a message, 0 for none. */
  send(body: unknown, timeoutMs: number): Promise<Reply>;
  close(): void;
}

/** A connection to `url`, open; the headers carry `requestId` (the relay's Request-Id, this service's X-Request-Id). */
export function openSide(url: string, requestId: string): Promise<WsSide> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { 'request-id': requestId, 'x-request-id': requestId } });
    let waiting: ((text: string | Error) => void) | undefined;
    let closed: string | undefined;
    socket.on('message', (data) => {
      const text = String(data);
      if (/^\{"jsonrpc":"2\.0","method":"eth_subscription"/.test(text)) return;
      waiting?.(text);
    });
    socket.on('close', (code, reason) => {
      closed = `closed ${code} ${String(reason)}`;
      waiting?.(new Error(closed));
    });
    socket.once('error', (err) => (closed === undefined ? reject(err) : undefined));
    socket.once('open', () =>
      resolve({
        send(body, timeoutMs) {
          const t0 = performance.now();
          const done = (text: string | Error): Reply => {
            const ms = performance.now() - t0;
            if (text instanceof Error) return { status: 0, text: '', json: undefined, ms, timedOut: false, error: text.message };
            return { status: 200, text, json: parse(text), ms, timedOut: false };
          };
          if (closed !== undefined) return Promise.resolve(done(new Error(closed)));
          return new Promise<Reply>((settle) => {
            const limit = setTimeout(() => finish(NO_REPLY), mayHaveNoAnswer(body) ? Math.min(NO_ANSWER_MS, timeoutMs) : timeoutMs);
            const finish = (text: string | Error) => {
              clearTimeout(limit);
              waiting = undefined;
              settle(done(text));
            };
            waiting = finish;
            socket.send(typeof body === 'string' ? body : JSON.stringify(body));
          });
        },
        close() {
          socket.close();
        },
      }),
    );
  });
}

/** A request without `id`, or a batch of only such requests. */
const mayHaveNoAnswer = (body: unknown): boolean =>
  Array.isArray(body) ? body.length > 0 && body.every(mayHaveNoAnswer) : typeof body === 'object' && body !== null && !('id' in body);

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
