/**
 * How a routed request is answered, on its network's database: an event stream (live logs), a whole
 * listing as NDJSON, or a page (through the network's response cache when it has one), each with
 * the reference's headers and, as additions, Indexed-Through.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import { answerOf } from '../answer.ts';
import { indexedThrough } from '../cache/pinned.ts';
import { parseQuery } from '../request/query.ts';
import { rawPath, rawSearch } from '../request/target.ts';
import { parseLimit } from '../request/values.ts';
import { type Route, cacheControlOf } from '../route.ts';
import type { EventStreams } from './eventStream.ts';
import { ndjsonLines, sendNdjson, wantsNdjson } from './ndjson.ts';
import type { Networks } from './networks.ts';
import { linkOrigin } from './origin.ts';
import { sendAnswer } from './respond.ts';
import { wantsEventStream } from './eventStream.ts';

/** The prefix under which the reference's contract router is mounted. */
export const MOUNT = '/api/v1/contracts';

/**
 * The reference keys its per-path headers by the mount path as the client typed it plus the route
 * pattern, so a request whose `/api/v1/contracts` is not written in lower case gets the default
 * headers even on a route with its own (the rest of the path may have any case).
 */
const headerKeyMatches = (path: string): boolean => path.startsWith(MOUNT);

export type Answer = (route: Route, request: FastifyRequest, reply: FastifyReply, url: string, path?: string) => Promise<unknown>;

export interface AnsweringOptions {
  networks: Networks;
  streams: EventStreams | undefined;
  clock: () => bigint;
}

export function answering({ networks, streams, clock }: AnsweringOptions): Answer {
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

  return async (route, request, reply, url, path = rawPath(url)) => {
    const network = networks.of(request.raw);
    if (network === undefined) throw networks.unknown(request.raw);
    const { config, db, cache, pinned } = network;
    const query = parseQuery(rawSearch(url));
    // only the host that picked this network, and only with includeHostInLink
    const linkBase = config.response.includeHostInLink ? linkOrigin(request.protocol, networks.hostOf(request.raw), config.port) : '';
    const cacheControl = headerKeyMatches(path) ? cacheControlOf(route, config) : config.headers.defaultCacheControl;
    const params = request.params as Record<string, string>;
    const context = { config, db, query, path, params, linkBase, now: clock };
    if (streams && route.events !== undefined && wantsEventStream(request.headers.accept)) {
      // live (an addition): checked like any request, then a stream; never through the response cache
      const lastEventId = request.headers['last-event-id'];
      const run = await route.events({ ...context, ...(typeof lastEventId === 'string' ? { lastEventId } : {}) });
      return streams.serve(request, reply, run, {});
    }
    if (pinned && route.listing !== undefined && wantsNdjson(request.headers.accept)) {
      // the whole range (an addition): no page size, the reads take pages of their own (a `limit` the
      // route would reject is left for it to reject); never through the response cache
      const limit = query.get('limit');
      if (limit === undefined || (typeof limit === 'string' && parseLimit(limit.slice(limit.indexOf(':') + 1), 1) !== undefined)) {
        query.set('limit', String(config.additions.ndjson.pageSize));
      }
      const onError = (err: unknown) => request.log.warn({ err, url: request.url }, 'NDJSON answer ended by a failed page');
      const listing = { ...route, listing: route.listing };
      const { value: lines, basis } = await pinned((stay) =>
        ndjsonLines({ route: listing, context: { ...context, config: ndjsonConfig(config) }, maxItems: config.additions.ndjson.maxItems, onError, stay }),
      );
      return sendNdjson(reply, lines, cacheControl, indexedThrough(basis));
    }
    const compute = async () => answerOf(await route.handler(context), cacheControl);
    if (!cache) {
      if (!pinned) return sendAnswer(request, reply, await compute());
      const { value, basis } = await pinned(compute);
      const header = indexedThrough(basis);
      return sendAnswer(request, reply, header === undefined ? value : { ...value, indexedThrough: header });
    }
    // the route template goes with the cached copy only when this path reaches the route by itself
    const template = path === rawPath(url) ? request.routeOptions.url : undefined;
    return sendAnswer(request, reply, await cache.answer({ path, query, linkBase }, compute, template));
  };
}
