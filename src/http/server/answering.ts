/**
 * How a routed request is answered, on its network's database: an event stream (live logs), a whole
 * listing as NDJSON, or a page (through the network's response cache when it has one), each with
 * the reference's headers and, as additions, Indexed-Through.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import { answerOf } from '../answer/answer.ts';
import { indexedThrough } from '../cache/settledCompute.ts';
import { answerForm } from '../request/accept.ts';
import { parseQuery } from '../request/query.ts';
import { rawPath, rawSearch, rawSegments } from '../request/target.ts';
import { parseLimit } from '../request/values.ts';
import { type Route, cacheControlOf } from '../route.ts';
import { leaveAdmission } from './load/admission.ts';
import type { EventStreams } from './streams/eventStream.ts';
import { type StreamKind, type StreamLimits, type StreamPlace, isRefusal } from './streams/limits.ts';
import { FIRST_PAGE, ndjsonLines, sendNdjson } from './streams/ndjson.ts';
import type { Networks } from './networks.ts';
import { linkOrigin } from './origin.ts';
import { sendAnswer, sendError } from '../answer/respond.ts';

/** The body of HEAD's NDJSON answer: its headers alone. */
async function* emptyLines(): AsyncGenerator<string> {}

/** The prefix under which the reference's contract router is mounted. */
export const MOUNT = '/api/v1/contracts';

/**
 * The reference keys its per-path headers by the mount path as the client typed it plus the route
 * pattern, so a request whose `/api/v1/contracts` is not written in lower case gets the default
 * headers even on a route with its own (the rest of the path may have any case).
 */
const headerKeyMatches = (path: string): boolean => path.startsWith(MOUNT);

/** Answers a routed request with `route` (`path`: the path the route sees, when not the request's own). */
export type AnswerRoute = (route: Route, request: FastifyRequest, reply: FastifyReply, url: string, path?: string) => Promise<unknown>;

export interface AnsweringOptions {
  networks: Networks;
  streams: EventStreams | undefined;
  limits: StreamLimits;
  clock: () => bigint;
}

export function answering({ networks, streams, limits, clock }: AnsweringOptions): AnswerRoute {
  /** The reads of an NDJSON answer take pages of additions.ndjson.pageSize (the listings cap `limit` at response.limit.max). */
  const ndjsonConfigs = new Map<Config, Config>();
  const ndjsonConfig = (config: Config): Config => {
    let derived = ndjsonConfigs.get(config);
    if (derived === undefined) {
      const max = config.additions.ndjson.pageSize;
      ndjsonConfigs.set(config, (derived = { ...config, response: { ...config.response, limit: { ...config.response.limit, max } } }));
    }
    return derived;
  };

  /**
   * Runs `work` in a stream place of `kind` (none for HEAD, which opens no stream): a refused stream is
   * answered at once, and the place is given back when `work` fails before the stream took it over.
   */
  const inPlace = async (kind: StreamKind, reading: boolean, request: FastifyRequest, reply: FastifyReply, work: (place: StreamPlace | undefined) => Promise<unknown>) => {
    const place = request.method === 'HEAD' ? undefined : limits.place(kind, request.ip, reading);
    if (place !== undefined && isRefusal(place)) return sendError(reply, place);
    try {
      return await work(place);
    } catch (err) {
      place?.close();
      throw err;
    }
  };

  return async (route, request, reply, url, path = rawPath(url)) => {
    const network = networks.of(request.raw);
    if (network === undefined) throw networks.unknown(request.raw);
    const { config, db, cache, settledCompute } = network;
    const query = parseQuery(rawSearch(url));
    // only the host that picked this network, and only with includeHostInLink
    const linkBase = config.response.includeHostInLink ? linkOrigin(request.protocol, networks.hostOf(request.raw), config.port) : '';
    const cacheControl = headerKeyMatches(path) ? cacheControlOf(route, config) : config.headers.defaultCacheControl;
    const params = request.params as Record<string, string>;
    const context = { config, db, query, path, params, rawSegments: rawSegments(route.path, path), linkBase, now: clock };
    const form = config.additions.enabled ? answerForm(request.headers.accept, route) : 'json';
    if (form === 'events' && streams) {
      // live (an addition): its place first (a refused stream costs no statement), then checked like
      // any request, then a stream; never through the response cache
      return inPlace('events', false, request, reply, async (place) => {
        const lastEventId = request.headers['last-event-id'];
        const events = await route.events!({ ...context, ...(typeof lastEventId === 'string' ? { lastEventId } : {}) });
        return streams.serve(request, reply, events, place);
      });
    }
    if (form === 'ndjson' && settledCompute) {
      // the whole range (an addition): no page size, the reads take pages of their own (a `limit` the
      // route would reject is left for it to reject); never through the response cache
      return inPlace('ndjson', true, request, reply, async (place) => {
        const limit = query.get('limit');
        const sized = limit === undefined || (typeof limit === 'string' && parseLimit(limit.slice(limit.indexOf(':') + 1), 1) !== undefined);
        if (sized) query.set('limit', String(Math.min(FIRST_PAGE, config.additions.ndjson.pageSize)));
        const onError = (err: unknown) => request.log.warn({ err, url: request.url }, 'NDJSON answer ended by a failed page');
        const listing = { ...route, listing: route.listing! };
        const { maxItems, pageSize } = config.additions.ndjson;
        const { value: lines, basis } = await settledCompute((stay) =>
          ndjsonLines({
            route: listing,
            context: { ...context, config: ndjsonConfig(config) },
            sized,
            maxItems,
            maxPageSize: pageSize,
            pageBytes: limits.pageBytes,
            onError,
            read: (work) => place!.read(() => stay(work)),
          }),
        );
        if (place === undefined) return sendNdjson(reply, emptyLines(), cacheControl, indexedThrough(basis));
        // a stream from here: its place is in the stream limits, no longer in the request limiter
        leaveAdmission(request.raw);
        reply.raw.once('close', () => place.close());
        return sendNdjson(reply, lines, cacheControl, indexedThrough(basis));
      });
    }
    const compute = async () => answerOf(await route.handler(context), cacheControl);
    if (!cache) {
      if (!settledCompute) return sendAnswer(request, reply, await compute());
      const { value, basis } = await settledCompute(compute);
      const header = indexedThrough(basis);
      return sendAnswer(request, reply, header === undefined ? value : { ...value, indexedThrough: header });
    }
    // the route template goes with the cached copy only when this path reaches the route by itself
    const template = path === rawPath(url) ? request.routeOptions.url : undefined;
    return sendAnswer(request, reply, await cache.answer({ path, query, linkBase }, compute, template));
  };
}
