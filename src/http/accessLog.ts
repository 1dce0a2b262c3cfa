/**
 * Request ids and the access log: every request gets an id (the client's `x-request-id` when it
 * sends a usable one, else a new UUID), echoed in the `x-request-id` response header; every answer
 * logs one line at info level. Database outages are logged once when they begin and once when
 * they end, not once per request.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Db } from '../db/db.ts';
import { databaseStatus } from '../db/status.ts';

const USABLE_ID = /^[\w.:-]{1,200}$/;

/** The id of a request: the client's x-request-id when it is a short token, else a new UUID. */
export function requestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && USABLE_ID.test(header) ? header : randomUUID();
}

export function registerAccessLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
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
