/**
 * `GET /`: what this service is and where its parts are: name, version, the API documentation,
 * the health probes, the metrics and every route, as a small JSON index.
 */
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../../../version.ts';
import { METRICS_PATHS } from './metrics.ts';

export const SERVICE_NAME = 'contract-query-service';

/** Where the API documentation is served (the reference's openapi.swaggerUIPath and specFileName). */
export const DOCS = {
  ui: '/api/v1/docs',
  openapiYaml: '/api/v1/docs/openapi.yml',
  openapiJson: '/api/v1/docs/openapi.json',
} as const;

/** A Fastify route path in OpenAPI's notation: `:name` and `:name(regex)` become `{name}`. */
export const openApiPath = (path: string): string => path.replace(/:(\w+)(\([^)]*\))?/g, '{$1}');

export interface HomeIndex {
  name: string;
  version: string;
  docs: typeof DOCS;
  health: { liveness: string; readiness: string };
  metrics: string[];
  routes: string[];
  /** Present when the routes served nowhere here are passed to an upstream mirror node. */
  upstream?: string;
}

export function homeIndex(routePaths: readonly string[], upstream: boolean): HomeIndex {
  const index: HomeIndex = {
    name: SERVICE_NAME,
    version: VERSION,
    docs: DOCS,
    health: { liveness: '/health/liveness', readiness: '/health/readiness' },
    metrics: [...METRICS_PATHS],
    routes: routePaths.map((path) => `GET ${openApiPath(path)}`).sort(),
  };
  if (upstream) index.upstream = 'other routes are answered by the upstream mirror node';
  return index;
}

export function registerHome(app: FastifyInstance, routePaths: readonly string[], upstream: boolean): void {
  const body = Buffer.from(JSON.stringify(homeIndex(routePaths, upstream)));
  app.route({
    method: ['GET', 'HEAD'],
    url: '/',
    handler: async (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(body),
  });
}
