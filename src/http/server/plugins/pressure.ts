/**
 * Overload protection, per process (docs/load-control.md, "Overload"):
 *
 * - a cap on open connections (`server.maxConnections`): connectionCap.ts;
 * - load shedding before routing (admission.ts): while the mean event-loop delay or the V8 heap in
 *   use is beyond its bound (@fastify/under-pressure, sampled every second, registered here), when
 *   `server.pressure.maxPoolWaiting` statements already wait for a connection of the request's
 *   database, or when the limit of contract requests in flight is reached (fixed, or adaptive: limiter.ts),
 *   requests answer 503 `Service unavailable` with `Retry-After: 1`, before any work. Health probes
 *   and metrics are exempt: a busy process is alive, and its metrics show why it sheds.
 *
 * under-pressure's own hook stays behind the admission: a request routed in the moment its check
 * turns is answered the same 503 through Fastify.
 */
import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerSettings } from '../../../config/service.ts';
import { prepareError } from '../../answer/respond.ts';
import { httpErrors } from '../../answer/errorCatalog.ts';
import { routeFlags } from '../routeFlags.ts';

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

/** Registers under-pressure; returns whether its event-loop or heap bound is passed now. */
export function registerPressure(app: FastifyInstance, server: ServerSettings): () => boolean {
  const pressureHandler = (request: FastifyRequest, reply: FastifyReply): Buffer | undefined => {
    if (routeFlags(request).operational) return undefined; // served
    return prepareError(reply, httpErrors.unavailable);
  };
  app.register(underPressure, {
    ...pressureOptions(server.pressure),
    retryAfter: 1,
    pressureHandler: pressureHandler as PressureHandler,
  });
  const pressured = app as FastifyInstance & { isUnderPressure?: () => boolean };
  return () => pressured.isUnderPressure?.() === true;
}
