/**
 * What a route is to the server: its path, the cache-control of its answers, its documentation and
 * its handler, and what the handler sees of a request and gives back. Every layer may import this
 * file; it imports only types.
 */
import type { Registry } from 'prom-client';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/db.ts';
import type { RouteSchema } from './docs/schema.ts';
import type { ParsedQuery } from './request/query.ts';

/** What a route handler sees of a request. */
export interface RequestContext {
  config: Config;
  db: Db;
  /** Lower-cased keys, qs semantics. */
  query: ParsedQuery;
  /** The request path exactly as sent (percent-encoded, case preserved). */
  path: string;
  /** Decoded path parameters. */
  params: Record<string, string>;
  /** The route's path segments as sent, undecoded (request/target.ts, rawSegments). */
  rawSegments: Record<string, string>;
  /** Prefix for pagination links: "" or "<protocol>://<host>:<port>" with response.includeHostInLink. */
  linkBase: string;
  /** The current time in ns since the epoch (a test clock may replace the system's). */
  now: () => bigint;
  /** The Last-Event-ID header of an event-stream request (live logs), where sent. */
  lastEventId?: string;
}

/**
 * A handler's answer: a JSON-ready body (or its JSON text), for listings the next-page link, and
 * the status when it is not 200 (206 for a partial result).
 */
export interface Page {
  body: unknown;
  next?: string | null;
  status?: 200 | 206;
  /**
   * Set where it is certain: the answer is settled (can no longer change) once the newest record
   * file ends at or after this consensus timestamp (ns; 0n: settled already). The response cache
   * then keeps it for cache.response.immutableMaxAge instead of its max-age.
   */
  settledAfter?: bigint;
}

export type Handler = (ctx: RequestContext) => Promise<Page>;

/**
 * One GET route: its path pattern, the cache-control of its successful answers with the
 * reference's default configuration, its handler. `pattern` is the reference's route pattern when
 * it differs from `path`: `response.headers.path` is keyed by it.
 */
export interface Route {
  path: string;
  pattern?: string;
  cacheControl: string;
  /** The route's documentation (OpenAPI): it never validates requests nor serializes answers. */
  schema?: RouteSchema;
  /**
   * A listing's key of its items (`{"<listing>": [...], "links": {"next": ...}}`): such a route also
   * answers the whole range as NDJSON (server/streams/ndjson.ts).
   */
  listing?: string;
  /** Answers `Accept: text/event-stream` (an addition): a stream of events instead of a page (server/streams/eventStream.ts). */
  events?: EventsHandler;
  /** Metrics of the route's own (the live logs' feeds), scraped with the service's; routes may share one. */
  metrics?: Registry;
  handler: Handler;
}

/** One Server-Sent Event as written: `event:`, `id:`, one `data:` line (data holds no line break), a blank line. */
export const encodeEvent = (event: string, id: string, data: string): string => `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;

/** Where a route's event stream writes (Server-Sent Events; server/streams/eventStream.ts implements it). */
export interface EventSink {
  /**
   * Sends `events` events already encoded (encodeEvent) in one write; the same chunk may go to many
   * streams. False when the stream is closed.
   */
  sendEncoded(chunk: string | Buffer, events: number): boolean;
  /**
   * Resolves once the client has taken what was sent (or the stream closed): a producer that sets
   * its own pace (a backlog read page by page) waits for it before the next page.
   */
  drained(): Promise<void>;
  /** Runs one read of stored pages (the backlog) in its turn among the streams' reads. */
  read<T>(work: () => Promise<T>): Promise<T>;
  /** The text of events one read may bring: a backlog page is sized to fit. */
  readonly pageBytes: number;
  /** The stream has sent its backlog and now follows the live feed (it stops counting as a reader). */
  joinedLive(): void;
  /**
   * The slow-consumer rule, for events that come at the network's pace: when more than the limit
   * waits for the client, it is closed with a last event saying why. False when the stream is closed.
   */
  keepUp(): boolean;
  /** Ends the stream with a last `error` event whose data is the error body with `message`. */
  close(message: string): void;
  /** True once the client went away or the stream was closed. */
  readonly isClosed: boolean;
  /** Resolves when the stream is closed, for whatever reason. */
  readonly closed: Promise<void>;
}

/** A checked event-stream request: whether it starts with a backlog, its Indexed-Through, and the stream's work. */
export interface EventsRun {
  backlog: boolean;
  /** The Indexed-Through header of the stream's start (the newest block the feed had). */
  indexedThrough?: string;
  run: (sink: EventSink) => Promise<void>;
}

/**
 * A route's event stream: the request is checked first (a rejected one is answered as usual: 400,
 * 404, 503), then the stream runs until the client goes away or the sink is closed.
 */
export type EventsHandler = (context: RequestContext) => Promise<EventsRun>;

/** The cache-control a route's answers carry under this configuration (response.headers). */
export const cacheControlOf = (route: Route, config: Config): string =>
  config.headers.byPath[route.pattern ?? route.path] ?? config.headers.defaultCacheControl;
