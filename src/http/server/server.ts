import cors from '@fastify/cors';
import compress from '@fastify/compress';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Config } from '../../config/config.ts';
import { DatabaseUnavailableError, type Db, rootCause } from '../../db/db.ts';
import { compressOptions } from '../compression.ts';
import { registerDocs } from '../docs/openapi.ts';
import { ClientError } from '../request/errors.ts';
import { logAccess, logDatabaseState, registerAccessLog, requestId } from './plugins/accessLog.ts';
import { onClientError, onConnect } from './clientErrors.ts';
import { registerDrain } from './plugins/drain.ts';
import { VERSION } from '../../version.ts';
import type { Route } from '../route.ts';
import { EventStreams } from './streams/eventStream.ts';
import { StreamLimits } from './streams/limits.ts';
import { watchStalls } from './load/stallWatch.ts';
import { MOUNT, answering } from './answering.ts';
import { type Network, type NetworkSource, Networks, networkOf } from './networks.ts';
import { CacheMetricsFamily } from '../cache/metrics.ts';
import { registerHealth } from './plugins/health.ts';
import { cacheHits } from './cacheHits.ts';
import { answerBeforeRouting } from './beforeRouting.ts';
import { hostCheck } from './hostCheck.ts';
import { registerHome } from './plugins/home.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { registerPressure } from './plugins/pressure.ts';
import { type AdmittedNetwork, admission } from './load/admission.ts';
import { capConnections, reservedOnly } from './load/connectionCap.ts';
import { capForwardedClients } from './load/clientCap.ts';
import { closeIdleWhenCrowded } from './load/idleConnections.ts';
import { refusals } from './load/refusals.ts';
import type { HostSource } from '../request/host.ts';
import { rawPath } from '../request/target.ts';
import { sendError } from '../answer/respond.ts';
import { httpErrors } from '../answer/errorCatalog.ts';
import { registerUpstream } from './plugins/upstream.ts';
import { registerVary } from './plugins/vary.ts';

/**
 * The compilers of the contract routes: their schemas only document. The handlers check the raw
 * request with the reference's rules and messages, and answers are JSON text built by the views.
 */
const DOCUMENTATION_ONLY = {
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};

export interface AppOptions {
  config: Config;
  db: Db;
  routes: Route[];
  /** Several networks, each with its configuration and database (config.networks); `config` and `db` then serve none. */
  networks?: NetworkSource[];
  /** The network of hosts that name none. */
  defaultNetwork?: string | undefined;
  logger?: Logger | false;
  /** The clock of the requests, in ns since the epoch; the system clock by default. */
  clock?: () => bigint;
  /** Endpoints beside the routes (the JSON-RPC endpoint, src/rpc), registered with the networks served; each may return its metrics, scraped with the others. */
  endpoints?: Array<(app: FastifyInstance, networks: Networks) => Registry | undefined | void>;
}

/** `/api/v1/contracts//` (any case, a query string aside): the listing, as the reference routes it. */
const EMPTY_SEGMENT_LISTING = /^\/api\/v1\/contracts\/\/$/i;

const hasEmptyParam = (params: unknown): boolean => Object.values(params as Record<string, string>).some((v) => v === '');

/** The system clock in ns since the epoch. */
export const systemClock = (): bigint => BigInt(Date.now()) * 1_000_000n;

export function buildApp({ config, db, routes, logger = false, clock = systemClock, networks: networkSources = [], defaultNetwork, endpoints = [] }: AppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger || undefined,
    // Fastify's own two lines per request are replaced by the one line of the access log.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (request) => requestId(request.headers['x-request-id']),
    // X-Forwarded-Proto/-Host count only behind a proxy the operator declared (links, origin.ts).
    trustProxy: config.server.trustProxy,
    // Idle connections hold no place for long: a kept-alive one closes after server.keepAliveTimeout
    // (sooner while crowded: load/idleConnections.ts); one that sends no whole request head within
    // server.headersTimeout gets 408 (Node's check runs every connectionsCheckingInterval, 30 s by default).
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    http: { connectionsCheckingInterval: Math.min(1000, config.server.headersTimeoutMs) },
    // Requests the HTTP parser rejects (431, 408, 400): the mirror's body and Connection: close.
    clientErrorHandler: onClientError,
    routerOptions: {
      caseSensitive: false,
      ignoreTrailingSlash: true,
      maxParamLength: 4096,
      // The raw query string is parsed by the handlers (qs semantics); skip Fastify's own parse.
      querystringParser: () => ({}),
    },
    // A path the router cannot decode (bad percent escape) is client input: 400, never 500.
    // (No hook runs for these: the CORS and Vary headers are set here.)
    frameworkErrors: (error, request, reply) => {
      reply.header('access-control-allow-origin', '*');
      if (config.response.compression) reply.header('vary', 'Accept-Encoding');
      sendError(reply, error.code === 'FST_ERR_BAD_URL' ? httpErrors.badPath : httpErrors.badRequest);
      logAccess(request, 400, reply.elapsedTime);
    },
  }) as unknown as FastifyInstance;
  const { pressure, maxConnectionsPerClient: perClient, trustProxy } = config.server;
  app.server.headersTimeout = config.server.headersTimeoutMs;
  // CONNECT never reaches Fastify: without a listener Node drops the connection unanswered.
  app.server.on('connect', onConnect.bind(app));

  // As the reference's cors middleware: any preflight is answered (204), Origin or not.
  app.register(cors, { origin: '*', methods: 'GET,HEAD,PUT,PATCH,POST,DELETE', strictPreflight: false });
  if (config.response.compression) {
    app.register(compress, compressOptions);
    registerVary(app);
  }

  app.setNotFoundHandler(registerUpstream(app, config, logger) ?? ((_request, reply) => sendError(reply, httpErrors.notFound)));
  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof ClientError) return sendError(reply, httpErrors.clientError(error));
    if (error instanceof DatabaseUnavailableError) {
      // An expected failure: one line without a stack (the outage itself is logged once, above).
      request.log.debug({ cause: rootCause(error).message }, 'database error');
      return sendError(reply, httpErrors.unavailable);
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, httpErrors.ofStatus(status));
    }
    request.log.error({ err: error, url: request.url }, 'unexpected error');
    return sendError(reply, httpErrors.internal);
  });

  // several networks: one family of cache metrics, each network's under its label
  const cacheFamily = networkSources.length > 0 ? new CacheMetricsFamily(true) : undefined;
  const served = new Networks(
    networkSources,
    defaultNetwork,
    config.server.trustProxy,
    (source) => networkOf(source, logger || pino({ enabled: false }), VERSION, cacheFamily),
    { config, db },
  );
  const nameOf = (request: HostSource) => served.of(request)?.name;

  registerAccessLog(app, served.named ? (request) => nameOf(request.raw) : undefined);
  if (logger) for (const network of served.all) logDatabaseState(network.db, network.name ? logger.child({ network: network.name }) : logger);
  const drain = registerDrain(app);
  const underPressure = registerPressure(app, config.server);
  const shedding = () =>
    underPressure() || (pressure.maxPoolWaiting > 0 && Math.max(...served.all.map((n) => n.db.poolStats().waiting)) >= pressure.maxPoolWaiting);
  const admitted = new Map<Network, AdmittedNetwork>(
    served.all.map((network) => {
      const { db, config: own } = network;
      const poolSize = own.db.pool.maxConnections * (1 + own.db.replicas.hosts.length);
      return [network, { name: network.name, poolSize, poolWaiting: () => db.poolStats().waiting, ...(db.queue ? { queue: db.queue } : {}) }];
    }),
  );
  const admit = admission({
    pressure,
    networks: [...admitted.values()],
    networkOf: (request) => {
      const network = served.of(request);
      return network === undefined ? undefined : admitted.get(network);
    },
    underPressure,
    draining: () => drain.draining,
    vary: config.response.compression,
    logger,
  });
  drain.onDrain(() => admit.flush());
  app.addHook('onClose', async () => admit.stop());
  registerHealth(app, served.all, () => drain.draining);
  for (const { cache } of served.all) if (cache) app.addHook('onClose', () => cache.close());
  // streamed answers (additions): their limits, and the event streams of the routes that have them
  const liveRegistry = new Registry();
  const limits = new StreamLimits({ ...config.streams, maxLive: config.live.maxSubscribers }, liveRegistry);
  const streams = config.additions.enabled ? new EventStreams({ config, limits, registry: liveRegistry }) : undefined;
  if (streams) {
    drain.onDrain(() => streams.closeAll());
    // before the server closes: it waits for every connection, and a stream's is open until the stream ends
    app.addHook('preClose', async () => streams.stop());
  }
  const routeRegistries = [...new Set(routes.map((route) => route.metrics).filter((r): r is Registry => r !== undefined))];
  const cacheRegistries = [...new Set(served.all.flatMap(({ cache }) => (cache ? [cache.metrics.registry] : [])))];
  // the endpoints' registries exist once they are registered (below): merged at the first scrape
  const endpointRegistries: Registry[] = [];
  const admitRegistry = admit.registry;
  const observe = registerMetrics(app, served.all, (request) => nameOf(request.raw), () =>
    Registry.merge([liveRegistry, admitRegistry, ...routeRegistries, ...cacheRegistries, ...endpointRegistries]),
  );

  // The connection and the steps before routing, in the order they act: the connection caps (Node
  // takes no request past them), then each step that may answer Node's request before Fastify does
  // (see docs/architecture.md, "The way of a request")
  const refused = refusals(perClient, config.response.compression, (reason) => admit.count(reason));
  const cap = capConnections(app.server, {
    max: config.server.maxConnections,
    perClient: trustProxy ? 0 : perClient,
    holdMs: pressure.maxShedDelayMs,
    clientHoldMs: config.server.headersTimeoutMs,
    refusals: refused,
  });
  const forwarded = trustProxy && perClient > 0 ? capForwardedClients(perClient, refused) : undefined;
  answerBeforeRouting(app, [
    hostCheck({ vary: config.response.compression, logger, observe }),
    reservedOnly(pressure.maxShedDelayMs, refused),
    forwarded?.beforeRouting,
    cacheRegistries.length > 0
      ? cacheHits({ config, cacheOf: (request) => served.of(request)?.cache, logger, observe, refusing: () => drain.draining || shedding(), networkOf: nameOf })
      : undefined,
    admit.beforeRouting,
  ]);
  const idle = closeIdleWhenCrowded(app.server, cap, config.server.maxConnections, trustProxy ? 0 : perClient);
  app.addHook('onClose', async () => idle.stop());
  // any answer, page or stream, whose client takes none of its bytes for server.stallTimeout
  const stalls = watchStalls(app.server, { timeoutMs: config.server.stallTimeoutMs, minRate: config.server.stallMinRate, registry: liveRegistry, logger });
  app.addHook('onClose', async () => stalls.stop());
  /** Runs a route's handler (or takes its answer from its network's response cache) and sends the answer. */
  const answerRoute = answering({ networks: served, streams, limits, clock });
  const listing = routes.find((r) => r.path === MOUNT);
  registerDocs(app, served.named ? served.all.map((n) => n.name!) : []);
  registerHome(app, routes.map((route) => route.path), config.upstream.url !== undefined);
  app.register(async (scope) => {
    for (const route of routes) {
      const options = route.schema ? { schema: route.schema, ...DOCUMENTATION_ONLY } : {};
      scope.get(route.path, options, async (request: FastifyRequest, reply: FastifyReply) => {
        const url = request.raw.url ?? request.url;
        if (hasEmptyParam(request.params)) {
          // The reference's router matches no route with an empty path segment, except that its
          // contracts listing also answers `/api/v1/contracts//` (its mount path, then `//`).
          if (!listing || !EMPTY_SEGMENT_LISTING.test(rawPath(url))) return sendError(reply, httpErrors.notFound);
          return answerRoute(listing, request, reply, url, rawPath(url).slice(0, -2));
        }
        return answerRoute(route, request, reply, url);
      });
    }
  });
  for (const endpoint of endpoints) {
    const registry = endpoint(app, served);
    if (registry) endpointRegistries.push(registry);
  }
  return app;
}
