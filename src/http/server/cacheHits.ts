/**
 * Answers the in-process cache tier holds, sent before Fastify routes the request. Under a cached
 * load nearly every request is such a hit, and Fastify's request and reply objects, its hook
 * chains and its onSend pipeline cost more than the hit itself. A request is served here only
 * when its answer is exactly what the full path would send, byte for byte, headers included
 * (test/http/server/cacheHits.test.ts compares the two):
 *
 * - a GET without If-None-Match whose answer the tier holds, with the template of the route that
 *   computed it (a path that reaches its route only through a special case is never served here);
 * - links without the host (response.includeHostInLink off: the origin is the request's);
 * - content-encoding as the compression stage (@fastify/compress) would apply it: the same
 *   negotiation, threshold and exceptions (a 206, `x-no-compression`), and the same bytes, from a
 *   compressed copy kept with the entry (compression.ts); answers it would stream (larger than
 *   SYNC_COMPRESSION_MAX) are left to it;
 * - the process neither draining nor shedding load.
 *
 * Anything else, and every miss, goes on to Fastify, which looks up the cache again. The request
 * gets the same id, access-log line and metrics as on the full path.
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import { logAccessBeforeRouting, requestId } from './plugins/accessLog.ts';
import { SYNC_COMPRESSION_MAX, encodingFor } from '../compression.ts';
import type { ResponseCache } from '../cache/responseCache.ts';
import type { RequestObserver } from './plugins/metrics.ts';
import { UrlIdentities } from '../cache/urlIdentities.ts';
import { JSON_TYPE } from '../answer/respond.ts';
import { withAcceptEncoding } from './plugins/vary.ts';
import { answerForm } from '../request/accept.ts';
import type { BeforeRouting } from './beforeRouting.ts';

export interface CacheHitsOptions {
  config: Config;
  /** The response cache of the request's network (none: the full path answers). */
  cacheOf: (request: IncomingMessage) => ResponseCache | undefined;
  logger: Logger | false;
  observe: RequestObserver;
  /** True while the process drains or sheds load: those requests take the full path. */
  refusing: () => boolean;
  /** The network of a request, where there are several (metrics and access line). */
  networkOf?: (request: IncomingMessage) => string | undefined;
}

/** The step before routing that sends the entry answer of a hit (true), or leaves the request to Fastify (false). */
export function cacheHits({ config, cacheOf, logger, observe, refusing, networkOf }: CacheHitsOptions): BeforeRouting | undefined {
  if (config.cache.localMaxBytes <= 0 || config.response.includeHostInLink) return undefined;
  const { compression } = config.response;
  // the compression stage's Vary on an answer without one of its own
  const vary = compression ? withAcceptEncoding(undefined) : undefined;
  // shared by the networks' caches: an identity holds no network
  const identities = new UrlIdentities();

  return (request, response) => {
    const started = performance.now();
    const { method, url, headers } = request;
    if (method !== 'GET' || url === undefined || url.charCodeAt(0) !== 0x2f /* / */ || headers['if-none-match'] !== undefined) return false;
    // a stream (an addition) is never a cached answer: one that may become one takes the full path
    if (refusing() || (config.additions.enabled && answerForm(headers.accept) !== 'json')) return false;
    const cache = cacheOf(request);
    const entry = cache?.localHit(identities.of(url));
    if (entry === undefined) return false;
    const { answer, route } = entry;
    const encoding = compression ? encodingFor(headers, answer.status, answer.body.length) : undefined;
    // a larger answer is streamed by the compression stage (chunked): that is the full path's
    if (encoding !== undefined && answer.body.length > SYNC_COMPRESSION_MAX) return false;
    const body = encoding === undefined ? answer.body : cache!.compressedBody(entry, encoding);

    cache!.metrics.hit('local');
    const id = requestId(headers['x-request-id']);
    // in the order the full path sets them: CORS and the id (onRequest), the answer, Vary and the encoding (onSend), the length
    const out: Record<string, string> = {
      'access-control-allow-origin': '*',
      'x-request-id': id,
      'content-type': JSON_TYPE,
      etag: answer.etag,
      'cache-control': answer.cacheControl,
    };
    if (answer.link !== undefined) out.link = answer.link;
    if (answer.indexedThrough !== undefined) out['indexed-through'] = answer.indexedThrough;
    if (vary !== undefined) out.vary = vary;
    if (encoding !== undefined) out['content-encoding'] = encoding;
    out['content-length'] = String(body.length);
    response.writeHead(answer.status, out);
    response.end(body);

    const ms = performance.now() - started;
    const network = networkOf?.(request);
    if (logger) logAccessBeforeRouting(logger, id, method, url, answer.status, ms, network);
    observe(method, route, answer.status, ms / 1000, network);
    return true;
  };
}
