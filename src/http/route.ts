/**
 * What a route is to the server: its path, the cache-control of its answers, its documentation and
 * its handler, and what the handler sees of a request and gives back. Every layer may import this
 * file; it imports only types.
 */
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
  /** Prefix for pagination links: "" or "<protocol>://<host>:<port>" with response.includeHostInLink. */
  linkBase: string;
  /** The current time in ns since the epoch (a test clock may replace the system's). */
  now: () => bigint;
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
   * Set where it is certain: the answer can no longer change once the newest record file ends at or
   * after this consensus timestamp (ns; 0n: it is final already). The response cache then keeps it
   * for cache.response.immutableMaxAge instead of its max-age.
   */
  immutableAfter?: bigint;
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
   * answers the whole range as NDJSON (server/ndjson.ts).
   */
  listing?: string;
  handler: Handler;
}

/** The cache-control a route's answers carry under this configuration (response.headers). */
export const cacheControlOf = (route: Route, config: Config): string =>
  config.headers.byPath[route.pattern ?? route.path] ?? config.headers.defaultCacheControl;
