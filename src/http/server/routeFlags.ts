/**
 * Flags in a route's Fastify `config`, read by the server-wide stages: load shedding and the
 * shutdown drain (pressure.ts, drain.ts) and Vary (plugins/vary.ts).
 */
import type { FastifyRequest } from 'fastify';

export interface RouteFlags {
  /** Health probes and metrics: never shed, answered during the shutdown drain (readiness then says not ready). */
  operational?: boolean;
  /** The health probes: the reference answers them before its Express stack, so without Vary. */
  probe?: boolean;
}

export const routeFlags = (request: FastifyRequest): RouteFlags => (request.routeOptions.config ?? {}) as RouteFlags;
