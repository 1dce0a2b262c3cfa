/**
 * Overload protection, per process:
 *
 * - a cap on open connections (`server.maxConnections`, Node's server.maxConnections): beyond it,
 *   new connections are closed at once, unanswered (a load balancer retries them elsewhere);
 * - load shedding: while the mean event-loop delay or the V8 heap in use is beyond its threshold
 *   (@fastify/under-pressure, sampled every second), or when a request arrives and
 *   `server.pressure.maxPoolWaiting` requests already wait for a database connection (read per
 *   request: a sampled queue overshoots between samples, and the admitted requests wait behind
 *   it), requests answer 503 `Service unavailable` with `Retry-After: 1` at once, before any work.
 *   Health probes and metrics are exempt: a busy process is alive, and its metrics show why it sheds.
 *
 * Shedding is logged once when it begins (with the check and its value) and then at most every
 * ten seconds with the count of requests shed, not once per request.
 */
import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerSettings } from '../../../config/service.ts';
import type { IncomingHttpHeaders } from 'node:http';
import { prepareError } from '../respond.ts';
import { routeFlags } from '../routeFlags.ts';

const LOG_EVERY_MS = 10_000;

/** The options of under-pressure for these settings; none of its checks when both thresholds are 0. */
export function pressureOptions(settings: ServerSettings['pressure']) {
  const { maxEventLoopDelayMs, maxHeapUsedPercent } = settings;
  return {
    maxEventLoopDelay: maxEventLoopDelayMs,
    maxHeapUsedBytes: maxHeapUsedPercent > 0 ? Math.floor((getHeapStatistics().heap_size_limit * maxHeapUsedPercent) / 100) : 0,
  };
}

/**
 * under-pressure serves the request when its handler returns nothing, and sends what it returns
 * otherwise (handlePressure in its index.js; its type declarations only say void).
 */
type PressureHandler = (request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined) => void;

/**
 * Registers the load shedding; returns whether a request arriving now would be shed. `poolWaiting`
 * tells how many statements wait for a connection of the pool that would answer a request (its
 * network's; without headers, the most of any).
 */
export function registerLoadShedding(app: FastifyInstance, server: ServerSettings, poolWaiting: (headers?: IncomingHttpHeaders) => number): () => boolean {
  if (server.maxConnections > 0) app.server.maxConnections = server.maxConnections;
  let shed = 0;
  let lastLog = -Infinity;
  const pressureHandler = (request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined): Buffer | undefined => {
    if (routeFlags(request).operational) return undefined; // served
    shed++;
    const now = performance.now();
    if (now - lastLog >= LOG_EVERY_MS) {
      request.log.warn({ check: type, value, shed }, 'overloaded: answering 503 until the load drops');
      lastLog = now;
      shed = 0;
    }
    reply.header('retry-after', '1');
    return prepareError(reply, 503, ['Service unavailable']);
  };
  app.register(underPressure, {
    ...pressureOptions(server.pressure),
    retryAfter: 1,
    pressureHandler: pressureHandler as PressureHandler,
  });
  const { maxPoolWaiting } = server.pressure;
  const pressured = app as FastifyInstance & { isUnderPressure?: () => boolean };
  const shedding = () => pressured.isUnderPressure?.() === true || (maxPoolWaiting > 0 && poolWaiting() >= maxPoolWaiting);
  if (maxPoolWaiting > 0) {
    app.addHook('onRequest', async (request, reply) => {
      const waiting = poolWaiting(request.headers);
      if (waiting < maxPoolWaiting) return;
      const answer = pressureHandler(request, reply, 'poolWaiting', waiting);
      if (answer === undefined) return undefined;
      return reply.send(answer);
    });
  }
  return shedding;
}
