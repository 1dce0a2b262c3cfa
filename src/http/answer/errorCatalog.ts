/**
 * Every error answer the HTTP layer writes itself, in one place (as Fastify's lib/errors.js, and
 * src/rpc/errors.ts for the JSON-RPC endpoint): its status, its body in the mirror node's shape
 * `{"_status":{"messages":[{"message":...}]}}`, and the headers it adds to the usual ones
 * (`Retry-After`, `Connection: close`). Where it is written is the writers' concern: through Fastify
 * (respond.ts: sendError), prepared once for Node's response and the raw socket (preparedAnswer.ts),
 * or as raw HTTP on a socket that never became a request (rawAnswer.ts). A route's own 400s and 404s
 * (ClientError, src/http/request/errors.ts) carry their messages; `clientError` makes them answers.
 */
import { type ClientError, errorBody } from '../request/errors.ts';

export interface ErrorAnswer {
  readonly status: number;
  readonly messages: readonly string[];
  /** The mirror node's error body of `messages`. */
  readonly body: string;
  /** The Retry-After header, in seconds; none when absent. */
  readonly retryAfter?: number;
  /** `Connection: close`: the connection ends with the answer. */
  readonly close?: true;
}

interface Headers {
  retryAfter?: number;
  close?: true;
}

/** An error answer of `status` with `messages` and the headers named. */
export function errorAnswer(status: number, messages: string | readonly string[], headers: Headers = {}): ErrorAnswer {
  const list = typeof messages === 'string' ? [messages] : messages;
  return Object.freeze({ status, messages: list, body: errorBody(list), ...headers });
}

/** The message of an error status the framework or Node's parser answers itself (not a handler's), in the reference's style. */
export function statusMessage(status: number): string {
  switch (status) {
    case 404:
      return 'Not found';
    case 408:
      return 'Request timeout';
    case 413:
      return 'Payload too large';
    case 431:
      return 'Request header fields too large';
    case 503:
      return 'Service unavailable';
    default:
      return status >= 500 ? 'Internal error' : 'Bad request';
  }
}

const UNAVAILABLE = 'Service unavailable';
/** Streams are refused for longer: a stream is long, and its client reconnects. */
const STREAM_RETRY = 5;

export const httpErrors = {
  /**
   * 503, Retry-After 1: the database does not answer (server.ts), a request shed (load/admission.ts,
   * plugins/pressure.ts) or beyond the connection cap (load/refusals.ts).
   */
  unavailable: errorAnswer(503, UNAVAILABLE, { retryAfter: 1 }),
  /** 503, Retry-After 1, Connection: close: a request during the shutdown drain (plugins/drain.ts). */
  shuttingDown: errorAnswer(503, UNAVAILABLE, { retryAfter: 1, close: true }),
  /** 503, Retry-After 5: an event stream asked for while the streams are being closed (streams/eventStream.ts). */
  streamsClosing: errorAnswer(503, UNAVAILABLE, { retryAfter: STREAM_RETRY }),
  /** 429, Retry-After 1: a client past its cap of connections (load/refusals.ts); the cap is stated, so that an operator behind a proxy knows what to raise. */
  tooManyConnections: (perClient: number) => errorAnswer(429, `Too many connections from this client: at most ${perClient} at once`, { retryAfter: 1 }),
  /** 429, Retry-After 5, Connection: close: a client with streams.maxPerClient streams open (streams/limits.ts). */
  tooManyStreams: (maxPerClient: number) =>
    errorAnswer(429, `Too many streams from this client: at most ${maxPerClient} at once`, { retryAfter: STREAM_RETRY, close: true }),
  /** 503, Retry-After 5, Connection: close: live.maxSubscribers live streams open (streams/limits.ts). */
  liveStreamsFull: errorAnswer(503, `${UNAVAILABLE}: too many live streams open; retry later`, { retryAfter: STREAM_RETRY, close: true }),
  /** 503, Retry-After 5, Connection: close: streams.maxReaders streams reading stored pages (streams/limits.ts). */
  readersFull: errorAnswer(503, `${UNAVAILABLE}: too many streams reading; retry later`, { retryAfter: STREAM_RETRY, close: true }),
  /** 400, Connection: close: a repeated or malformed Host, or host of the target (hostCheck.ts). */
  invalidHost: (message: string) => errorAnswer(400, message, { close: true }),
  /** 400: a path the router cannot decode (server.ts, Fastify's FST_ERR_BAD_URL), as the reference words it. */
  badPath: errorAnswer(400, 'Invalid parameter: contractid'),
  /** 400: a request this service cannot read (server.ts, plugins/upstream.ts, CONNECT in clientErrors.ts). */
  badRequest: errorAnswer(400, statusMessage(400)),
  /** 404: a path no route serves (server.ts). */
  notFound: errorAnswer(404, statusMessage(404)),
  /** 500: a fault of this service (server.ts, streams/ndjson.ts). */
  internal: errorAnswer(500, statusMessage(500)),
  /** 502 and 504: the upstream mirror node failed or did not answer in time (plugins/upstream.ts). */
  badGateway: errorAnswer(502, 'Bad gateway'),
  gatewayTimeout: errorAnswer(504, 'Gateway timeout'),
  /** An error status Fastify or Node's HTTP parser answers itself (server.ts, clientErrors.ts: 408, 413, 431, 400). */
  ofStatus: (status: number) => errorAnswer(status, statusMessage(status)),
  /** The answer of a route's ClientError (its status and messages, no header added). */
  clientError: (error: ClientError) => errorAnswer(error.status, error.messages),
};
