/**
 * Prometheus metrics (prom-client) at the reference's scrape path `/swagger/metrics/` and at
 * `/metrics`: requests and their latency by route template, method and status; the database
 * pool and statement durations; the process and event-loop metrics of prom-client's defaults.
 * Each process keeps its own figures (with --workers, each worker answers for itself).
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../../../db/db.ts';

/** Process-wide metrics (CPU, memory, event loop, GC): collected once per process. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20];

export const METRICS_PATHS = ['/metrics', '/swagger/metrics/'] as const;

/** Counts one answered request: its method, route template, status and duration. */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

/**
 * Registers the request hooks and the scrape routes on the app; `extra` (the response cache's) is
 * scraped too. Returns the observer of requests, for answers sent before routing (fastPath.ts).
 */
export function registerMetrics(app: FastifyInstance, db: Db, extra?: Registry): RequestObserver {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to its answer',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections: total open, idle, and requests waiting for one',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = db.poolStats();
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
  const statements = new Histogram({
    name: 'db_query_duration_seconds',
    help: 'Duration of database statements',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  db.observe((seconds, error) => statements.observe({ outcome: error ? 'error' : 'ok' }, seconds));

  const observe: RequestObserver = (method, route, status, seconds) => {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    latency.observe(labels, seconds);
  };
  app.addHook('onResponse', (request, reply, done) => {
    // The route template, never the URL itself (unbounded label values); unmatched paths share one.
    observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const scrape = Registry.merge([processMetrics(), registry, ...(extra ? [extra] : []), ...(db.registry ? [db.registry] : [])]);
  for (const url of METRICS_PATHS) {
    app.get(url, { config: { operational: true } }, async (_request, reply) => reply.header('content-type', scrape.contentType).send(await scrape.metrics()));
  }
  return observe;
}
