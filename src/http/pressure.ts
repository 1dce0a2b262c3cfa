/**
 * Overload protection, per process:
 *
 * - a cap on open connections (`server.maxConnections`, Node's server.maxConnections): beyond it,
 *   new connections are closed at once, unanswered (a load balancer retries them elsewhere);
 * - load shedding (@fastify/under-pressure, sampled every second): while the mean event-loop delay,
 *   the V8 heap in use or the number of requests waiting for a database connection is beyond its
 *   threshold (`server.pressure.*`), requests answer 503 `Service unavailable` with
 *   `Retry-After: 1` at once, before any work. Health probes and metrics are exempt: a busy process
 *   is alive, and its metrics show why it sheds.
 *
 * Shedding is logged once when it begins (with the check and its value) and then at most every
 * ten seconds with the count of requests shed, not once per request.
 */
import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerSettings } from '../config/service.ts';
import type { Db } from '../db/db.ts';
import { prepareError } from './respond.ts';
import { routeFlags } from './routeFlags.ts';

const LOG_EVERY_MS = 10_000;
/** How often the pool's waiting count is read. */
const POOL_CHECK_MS = 250;

/** The options of under-pressure for these settings; none of its checks when every threshold is 0. */
export function pressureOptions(settings: ServerSettings['pressure'], db: Db) {
  const { maxEventLoopDelayMs, maxHeapUsedPercent, maxPoolWaiting } = settings;
  return {
    maxEventLoopDelay: maxEventLoopDelayMs,
    maxHeapUsedBytes: maxHeapUsedPercent > 0 ? Math.floor((getHeapStatistics().heap_size_limit * maxHeapUsedPercent) / 100) : 0,
    ...(maxPoolWaiting > 0
      ? { healthCheck: async () => db.poolStats().waiting <= maxPoolWaiting, healthCheckInterval: POOL_CHECK_MS }
      : {}),
  };
}

/** What under-pressure calls a failed `healthCheck`: here, the pool's queue. */
const CHECK_NAMES: Record<string, string> = { healthCheck: 'poolWaiting' };

/**
 * under-pressure serves the request when its handler returns nothing, and sends what it returns
 * otherwise (handlePressure in its index.js; its type declarations only say void).
 */
type PressureHandler = (request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined) => void;

export function registerLoadShedding(app: FastifyInstance, server: ServerSettings, db: Db): void {
  if (server.maxConnections > 0) app.server.maxConnections = server.maxConnections;
  let shed = 0;
  let lastLog = -Infinity;
  const pressureHandler = (request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined): Buffer | undefined => {
    if (routeFlags(request).operational) return undefined; // served
    shed++;
    const now = performance.now();
    if (now - lastLog >= LOG_EVERY_MS) {
      request.log.warn({ check: CHECK_NAMES[type] ?? type, value, shed }, 'overloaded: answering 503 until the load drops');
      lastLog = now;
      shed = 0;
    }
    reply.header('retry-after', '1');
    return prepareError(reply, 503, ['Service unavailable']);
  };
  app.register(underPressure, {
    ...pressureOptions(server.pressure, db),
    retryAfter: 1,
    pressureHandler: pressureHandler as PressureHandler,
  });
}
