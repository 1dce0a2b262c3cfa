import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import compress from '@fastify/compress';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Config } from '../../config/config.ts';
import { DatabaseUnavailableError, type Db, rootCause } from '../../db/db.ts';
import { compressOptions } from '../compression.ts';
import { registerDocs } from '../docs/openapi.ts';
import { ClientError, statusMessage } from '../request/errors.ts';
import { logAccess, logDatabaseState, registerAccessLog, requestId } from './plugins/accessLog.ts';
import { onClientError, onConnect } from './plugins/clientErrors.ts';
import { registerDrain } from './plugins/drain.ts';
import { VERSION } from '../../version.ts';
import { answerOf } from '../answer.ts';
import { type Route, cacheControlOf } from '../route.ts';
import { createResponseCache } from '../cache/responseCache.ts';
import { indexedThrough, pinnedCompute } from '../cache/pinned.ts';
import { ndjsonLines, sendNdjson, wantsNdjson } from './ndjson.ts';
import { EventStreams, wantsEventStream } from './eventStream.ts';
import { registerHealth } from './plugins/health.ts';
import { type FastPath, fastPath } from './fastPath.ts';
import { registerHome } from './plugins/home.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { linkOrigin } from './origin.ts';
import { registerLoadShedding } from './plugins/pressure.ts';
import { parseQuery, rawPath, rawSearch } from '../request/query.ts';
import { parseLimit } from '../request/values.ts';
import { sendAnswer, sendError } from './respond.ts';
import { registerUpstream } from './plugins/upstream.ts';
import { registerVary } from './vary.ts';

/**
 * The compilers of the contract routes: their schemas only document. The handlers check the raw
 * request with the reference's rules and messages, and answers are JSON text built by the views.
 */
const DOCUMENTATION_ONLY = {
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};

/** The prefix under which the reference's contract router is mounted. */
const MOUNT = '/api/v1/contracts';

/**
 * The reference keys its per-path headers by the mount path as the client typed it plus the route
 * pattern, so a request whose `/api/v1/contracts` is not written in lower case gets the default
 * headers even on a route with its own (the rest of the path may have any case).
 */
const headerKeyMatches = (rawPath: string): boolean => rawPath.startsWith(MOUNT);

export interface AppOptions {
  config: Config;
  db: Db;
  routes: Route[];
  logger?: Logger | false;
  /** The clock of the requests, in ns since the epoch; the system clock by default. */
  clock?: () => bigint;
}

const NOT_FOUND = ['Not found'];

/** `/api/v1/contracts//` (any case, a query string aside): the listing, as the reference routes it. */
const EMPTY_SEGMENT_LISTING = /^\/api\/v1\/contracts\/\/$/i;

const hasEmptyParam = (params: unknown): boolean => Object.values(params as Record<string, string>).some((v) => v === '');

/**
 * Puts `front` before Fastify's handler on the app's server: the requests it answers (returning
 * true) never reach the router (fastPath.ts). Call it before anything else listens for
 * requests: Fastify attached its handler as the server's only `request` listener.
 */
function answerBeforeRouting(app: FastifyInstance, front: FastPath): void {
  const server = app.server;
  const [routing, ...others] = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  if (routing === undefined || others.length > 0) throw new Error('the HTTP server should have one request listener, the router');
  server.removeListener('request', routing);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    let answered: boolean;
    try {
      answered = front(request, response);
    } catch (err) {
      // never a crash: before anything was sent the full path answers; after, the answer stands
      app.log.error({ err, url: request.url }, 'answer before routing failed');
      answered = response.headersSent;
      if (answered && !response.writableEnded) response.destroy();
    }
    if (!answered) routing(request, response);
  });
}

/** The system clock in ns since the epoch. */
export const systemClock = (): bigint => BigInt(Date.now()) * 1_000_000n;

export function buildApp({ config, db, routes, logger = false, clock = systemClock }: AppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger || undefined,
    // Fastify's own two lines per request are replaced by the one line of the access log.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (request) => requestId(request.headers['x-request-id']),
    // X-Forwarded-Proto/-Host count only behind a proxy the operator declared (links, origin.ts).
    trustProxy: config.server.trustProxy,
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
      sendError(reply, 400, [error.code === 'FST_ERR_BAD_URL' ? 'Invalid parameter: contractid' : 'Bad request']);
      logAccess(request, 400, reply.elapsedTime);
    },
  }) as unknown as FastifyInstance;
  /** Serves the in-process cache tier's hits before routing, once the cache exists (below). */
  let fastPathHits: FastPath | undefined;
  answerBeforeRouting(app, (request, response) => fastPathHits !== undefined && fastPathHits(request, response));
  // CONNECT never reaches Fastify: without a listener Node drops the connection unanswered.
  app.server.on('connect', onConnect.bind(app));

  // As the reference's cors middleware: any preflight is answered (204), Origin or not.
  app.register(cors, { origin: '*', methods: 'GET,HEAD,PUT,PATCH,POST,DELETE', strictPreflight: false });
  if (config.response.compression) {
    app.register(compress, compressOptions);
    registerVary(app);
  }

  app.setNotFoundHandler(registerUpstream(app, config, logger) ?? ((_request, reply) => sendError(reply, 404, NOT_FOUND)));
  app.setErrorHandler((error: unknown, request, reply) => {
    if (error instanceof ClientError) return sendError(reply, error.status, error.messages);
    if (error instanceof DatabaseUnavailableError) {
      // An expected failure: one line without a stack (the outage itself is logged once, above).
      request.log.debug({ cause: rootCause(error).message }, 'database error');
      reply.header('retry-after', '1');
      return sendError(reply, 503, ['Service unavailable']);
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, status, [statusMessage(status)]);
    }
    request.log.error({ err: error, url: request.url }, 'unexpected error');
    return sendError(reply, 500, ['Internal error']);
  });

  const linkBase = (request: FastifyRequest) => (config.response.includeHostInLink ? linkOrigin(request, config.port) : '');

  registerAccessLog(app);
  if (logger) logDatabaseState(db, logger);
  const drain = registerDrain(app);
  const shedding = registerLoadShedding(app, config.server, db);
  registerHealth(app, db, () => drain.draining);
  const cache = config.cache.enabled ? createResponseCache({ config, db, logger: logger || pino({ enabled: false }), version: VERSION }) : undefined;
  if (cache) app.addHook('onClose', () => cache.close());
  // live logs (an addition): the event streams of the routes that have them
  const liveRegistry = new Registry();
  const streams = config.additions.enabled ? new EventStreams({ config, registry: liveRegistry }) : undefined;
  if (streams) {
    drain.onDrain(() => streams.closeAll());
    // before the server closes: it waits for every connection, and a stream's is open until the stream ends
    app.addHook('preClose', async () => streams.stop());
  }
  const routeRegistries = [...new Set(routes.map((route) => route.metrics).filter((r): r is Registry => r !== undefined))];
  const observe = registerMetrics(app, db, Registry.merge([liveRegistry, ...routeRegistries, ...(cache ? [cache.metrics.registry] : [])]));
  if (cache) fastPathHits = fastPath({ config, cache, logger, observe, refusing: () => drain.draining || shedding() });
  const { defaultCacheControl } = config.headers;
  /** Runs a route's handler (or takes its answer from the response cache) and sends the answer. */
  const { additions } = config;
  // the reads of an NDJSON answer take pages of additions.ndjson.pageSize (the listings cap `limit` at response.limit.max)
  const ndjsonConfig: Config = { ...config, response: { ...config.response, limit: { ...config.response.limit, max: additions.ndjson.pageSize } } };
  /** Answers computed without the cache read the newest record file first too, for Indexed-Through (an addition). */
  const pinned = additions.enabled ? pinnedCompute(db) : undefined;
  async function answer(route: Route, request: FastifyRequest, reply: FastifyReply, url: string, path = rawPath(url)) {
    const query = parseQuery(rawSearch(url));
    const base = linkBase(request);
    const cacheControl = headerKeyMatches(path) ? cacheControlOf(route, config) : defaultCacheControl;
    const params = request.params as Record<string, string>;
    if (streams && route.events !== undefined && wantsEventStream(request.headers.accept)) {
      // live (an addition): checked like any request, then a stream; never through the response cache
      const lastEventId = request.headers['last-event-id'];
      const context = { config, db, query, path, params, linkBase: base, now: clock, ...(typeof lastEventId === 'string' ? { lastEventId } : {}) };
      const run = await route.events(context);
      return streams.serve(request, reply, run, {});
    }
    if (additions.enabled && route.listing !== undefined && wantsNdjson(request.headers.accept)) {
      // the whole range (an addition): never through the response cache
      // no page size: the reads take pages of their own (a `limit` the route would reject is left for it to reject)
      const limit = query.get('limit');
      if (limit === undefined || (typeof limit === 'string' && parseLimit(limit.slice(limit.indexOf(':') + 1), 1) !== undefined)) {
        query.set('limit', String(additions.ndjson.pageSize));
      }
      const context = { config: ndjsonConfig, db, query, path, params, linkBase: base, now: clock };
      const onError = (err: unknown) => request.log.warn({ err, url: request.url }, 'NDJSON answer ended by a failed page');
      const listing = { ...route, listing: route.listing };
      const { value: lines, basis } = await pinned!((stay) => ndjsonLines({ route: listing, context, maxItems: additions.ndjson.maxItems, onError, stay }));
      return sendNdjson(reply, lines, cacheControl, indexedThrough(basis));
    }
    const compute = async () => answerOf(await route.handler({ config, db, query, path, params, linkBase: base, now: clock }), cacheControl);
    if (!cache) {
      if (!pinned) return sendAnswer(request, reply, await compute());
      const { value, basis } = await pinned(compute);
      const header = indexedThrough(basis);
      return sendAnswer(request, reply, header === undefined ? value : { ...value, indexedThrough: header });
    }
    // the route template goes with the cached copy only when this path reaches the route by itself
    const template = path === rawPath(url) ? request.routeOptions.url : undefined;
    return sendAnswer(request, reply, await cache.answer({ path, query, linkBase: base }, compute, template));
  }
  const listing = routes.find((r) => r.path === MOUNT);
  registerDocs(app);
  registerHome(app, routes.map((route) => route.path), config.upstream.url !== undefined);
  app.register(async (scope) => {
    for (const route of routes) {
      const options = route.schema ? { schema: route.schema, ...DOCUMENTATION_ONLY } : {};
      scope.get(route.path, options, async (request: FastifyRequest, reply: FastifyReply) => {
        const url = request.raw.url ?? request.url;
        if (hasEmptyParam(request.params)) {
          // The reference's router matches no route with an empty path segment, except that its
          // contracts listing also answers `/api/v1/contracts//` (its mount path, then `//`).
          if (!listing || !EMPTY_SEGMENT_LISTING.test(rawPath(url))) return sendError(reply, 404, NOT_FOUND);
          return answer(listing, request, reply, url, rawPath(url).slice(0, -2));
        }
        return answer(route, request, reply, url);
      });
    }
  });
  return app;
}
