/**
 * Request ids and the access log: every request gets an id (the client's `x-request-id` when it
 * sends a usable one, else a new UUID), echoed in the `x-request-id` response header; every answer
 * logs one line at info level. Database outages are logged once when they begin and once when
 * they end, not once per request.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Db } from '../../../db/db.ts';
import { databaseStatus } from '../../../db/status.ts';

const USABLE_ID = /^[\w.:-]{1,200}$/;

/** The id of a request: the client's x-request-id when it is a short token, else a new UUID. */
export function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && USABLE_ID.test(header) ? header : randomUUID();
}

/** URLs longer than this are cut in the log line (a request line may hold 16 KiB). */
const MAX_LOGGED_URL = 1024;

/** The URL as logged: at most MAX_LOGGED_URL characters, and how many more there were. */
export const loggedUrl = (url: string): string =>
  url.length <= MAX_LOGGED_URL ? url : `${url.slice(0, MAX_LOGGED_URL)}...(${url.length - MAX_LOGGED_URL} more)`;

/** The fields of an access line. */
const accessFields = (method: string, url: string, status: number, ms: number) => ({ method, url: loggedUrl(url), status, ms: Math.round(ms * 10) / 10 });

/** A request's network, set on it by the access log's hook where there are several (http/server/networks.ts). */
type WithNetwork = FastifyRequest & { network?: string | undefined };

/** The access line of one answer. */
export function logAccess(request: FastifyRequest, status: number, ms: number): void {
  const network = (request as WithNetwork).network;
  request.log.info(network === undefined ? accessFields(request.method, request.url, status, ms) : { ...accessFields(request.method, request.url, status, ms), network }, 'request');
}

/**
 * The access line of an answer sent without Fastify (cacheHits.ts), on the service's own logger:
 * the request id first, where a request's child logger puts it, so the line is the same.
 */
export function logAccessBeforeRouting(logger: Logger, reqId: string, method: string, url: string, status: number, ms: number, network?: string): void {
  logger.info(network === undefined ? { reqId, ...accessFields(method, url, status, ms) } : { reqId, ...accessFields(method, url, status, ms), network }, 'request');
}

/** `networkOf`: the network of a request, when there are several (its access line names it). */
export function registerAccessLog(app: FastifyInstance, networkOf?: (request: FastifyRequest) => string | undefined): void {
  if (networkOf) {
    app.decorateRequest('network', undefined);
    app.addHook('onRequest', (request, _reply, done) => {
      (request as WithNetwork).network = networkOf(request);
      done();
    });
  }
  // callback hooks: an async one costs a promise and a microtask on every request
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    logAccess(request, reply.statusCode, reply.elapsedTime);
    done();
  });
}

/**
 * Logs the database's state changes (src/db/status.ts): the first failed statement after a
 * success, and the first success after failures; before an external database was found ready at
 * start, its watch (src/db/watch.ts) logs instead.
 */
export function logDatabaseState(db: Db, logger: Logger): void {
  const status = databaseStatus(db);
  status.useLogger(logger);
  db.observe((_seconds, error) => (error ? status.statementFailed(error) : status.statementSucceeded()));
}
