/**
 * Prometheus metrics (prom-client) at the reference's scrape path `/swagger/metrics/` and at
 * `/metrics`: requests and their latency by route template, method and status; the database
 * pool and statement durations; the process and event-loop metrics of prom-client's defaults.
 * Each process keeps its own figures (with --workers, each worker answers for itself).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
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

/** Counts one answered request: its method, route template, status and duration (and network, where there are several). */
export type RequestObserver = (method: string, route: string, status: number, seconds: number, network?: string) => void;

/** The databases whose pools and statements are measured, each with its network's name (several networks only). */
export interface MeasuredDb {
  name: string | undefined;
  db: Db;
}

/**
 * Registers the request hooks and the scrape routes on the app; `extra` (the response cache's, the
 * endpoints') is scraped too: a registry, or one made at the first scrape (for metrics of parts
 * registered after this call). Returns the observer of requests, for answers sent before routing
 * (cacheHits.ts).
 */
export function registerMetrics(
  app: FastifyInstance,
  dbs: readonly MeasuredDb[],
  networkOf: (request: FastifyRequest) => string | undefined,
  extra?: Registry | (() => Registry),
): RequestObserver {
  const registry = new Registry();
  const named = dbs.some((d) => d.name !== undefined);
  const labelNames = named ? (['method', 'route', 'status', 'network'] as const) : (['method', 'route', 'status'] as const);
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to its answer',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const networkLabel = (name: string | undefined): Record<string, string> => (named ? { network: name ?? '' } : {});
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections: total open, idle, and requests waiting for one',
    labelNames: named ? ['state', 'network'] : ['state'],
    registers: [registry],
    collect() {
      for (const { name, db } of dbs) {
        const stats = db.poolStats();
        this.set({ state: 'total', ...networkLabel(name) }, stats.total);
        this.set({ state: 'idle', ...networkLabel(name) }, stats.idle);
        this.set({ state: 'waiting', ...networkLabel(name) }, stats.waiting);
      }
    },
  });
  const statements = new Histogram({
    name: 'db_query_duration_seconds',
    help: 'Duration of database statements',
    labelNames: named ? ['outcome', 'network'] : ['outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  for (const { name, db } of dbs) db.observe((seconds, error) => statements.observe({ outcome: error ? 'error' : 'ok', ...networkLabel(name) }, seconds));

  const observe: RequestObserver = (method, route, status, seconds, network) => {
    const labels = { method, route, status: String(status), ...networkLabel(network) };
    requests.inc(labels);
    latency.observe(labels, seconds);
  };
  app.addHook('onResponse', (request, reply, done) => {
    // The route template, never the URL itself (unbounded label values); unmatched paths share one.
    observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000, named ? networkOf(request) : undefined);
    done();
  });

  const dbRegistries = dbs.map(({ db }) => db.registry).filter((r): r is Registry => r !== undefined);
  let scrape: Registry | undefined;
  const scraped = () => (scrape ??= Registry.merge([processMetrics(), registry, ...(extra ? [typeof extra === 'function' ? extra() : extra] : []), ...dbRegistries]));
  for (const url of METRICS_PATHS) {
    app.get(url, { config: { operational: true } }, async (_request, reply) => reply.header('content-type', scraped().contentType).send(await scraped().metrics()));
  }
  return observe;
}
