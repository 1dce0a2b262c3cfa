/**
 * A whole listing as NDJSON (an addition to the reference's interface, docs/compatibility.md): with
 * `Accept: application/x-ndjson`, a listing route answers every item of the filtered range, one JSON
 * object per line in the listing's order, instead of one page. The items are the route's own pages,
 * read one after the other by following each page's next link (so they equal the concatenation of
 * every page of the paged listing), at most `maxItems` of them. The last line is a status object,
 * never an item:
 *
 *   {"_status":{"complete":true,"items":N}}                 the range was read to its end
 *   {"_status":{"complete":false,"items":N,"next":"..."}}    stopped at the maximum; `next` reads on
 *   {"_status":{"messages":[{"message":"..."}]}}            a page failed (the usual error body)
 *
 * What a stream holds for its client is bounded: a page is read only when the client has taken the
 * previous one (the stream is pulled by the socket), it is kept as its lines' text only, and its size
 * follows the size of the items so that its text fits in `pageBytes` (the first page takes
 * FIRST_PAGE items at most; later ones between MIN_PAGE and the configured page size). Later pages
 * are read in their turn among the streams' reads (limits.ts).
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Encoded, toJson } from '../../../format/json.ts';
import { DatabaseUnavailableError } from '../../../db/db.ts';
import { NDJSON_TYPE } from '../../request/accept.ts';
import { type ParsedQuery, parseQuery } from '../../request/query.ts';
import { rawPath, rawSearch } from '../../request/target.ts';
import { ClientError } from '../../request/errors.ts';
import { httpErrors } from '../../answer/errorCatalog.ts';
import type { Page, RequestContext, Route } from '../../route.ts';
import { STREAM_CHUNK, pageSizeFor } from './limits.ts';

/** Items of the first page at most: its items' size is not known yet. */
export const FIRST_PAGE = 100;
/** Items of a later page at least, however large the items. */
const MIN_PAGE = 10;

/**
 * Lines leave in chunks of STREAM_CHUNK characters: a write per line put one small TCP segment on
 * the wire per item, which cost the server most of a core and a Node client 10 times the time
 * (about 900 items/s where curl read 25,000).
 */
const CHUNK_CHARS = STREAM_CHUNK;

/** The items of a listing page as lines (listings answer `{"<key>": [...], "links": {"next": ...}}`). */
function linesOf(page: Page, key: string): string[] {
  const body = page.body instanceof Encoded ? page.body.value : page.body;
  const items = (body as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(items) ? items.map((item) => `${toJson(item)}\n`) : [];
}

/** A next link as a request context: its path and query (links are relative, or absolute with includeHostInLink). */
function contextOf(base: RequestContext, link: string): RequestContext {
  const relative = base.linkBase !== '' && link.startsWith(base.linkBase) ? link.slice(base.linkBase.length) : link;
  return { ...base, path: rawPath(relative), query: parseQuery(rawSearch(relative)) };
}

/** Where a link leads, whatever its page size: a link that leads where an earlier one did is not read again. */
const placeOf = ({ path, query }: { path: string; query: ParsedQuery }): string => JSON.stringify([path, [...query].filter(([key]) => key !== 'limit')]);

const statusLine = (status: Record<string, unknown>) => `${toJson({ _status: status })}\n`;

/** The error body of a failure in mid-stream, as the route would have answered it. */
function failureLine(err: unknown): string {
  const answer = err instanceof ClientError ? httpErrors.clientError(err) : err instanceof DatabaseUnavailableError ? httpErrors.unavailable : httpErrors.internal;
  return `${answer.body}\n`;
}

export interface NdjsonOptions {
  route: Route & { listing: string };
  /** The first page's request; `sized`: its `limit` is ours (FIRST_PAGE), and later pages may be sized. */
  context: RequestContext;
  sized: boolean;
  maxItems: number;
  /** The most items per page (additions.ndjson.pageSize). */
  maxPageSize: number;
  /** The page text one stream may hold. */
  pageBytes: number;
  /** Told of a failure in mid-stream (logged: the client sees only its error line). */
  onError: (err: unknown) => void;
  /** Runs the reads of the later pages: in their turn, on the first page's server (read replicas). */
  read: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * The lines of the listing, read page by page. The first page is read before the stream starts, so
 * that a request the route rejects (400, 404) or a database that is down (503) is answered as usual.
 */
export async function ndjsonLines({ route, context, sized, maxItems, maxPageSize, pageBytes, onError, read }: NdjsonOptions): Promise<AsyncIterable<string>> {
  const first = await route.handler(context);
  let lines: string[] | undefined = linesOf(first, route.listing);
  let next = first.next;
  async function* generate(): AsyncGenerator<string> {
    let ctx = context;
    let count = 0;
    const visited = new Set<string>([placeOf(ctx)]);
    for (;;) {
      const page = lines!;
      lines = undefined;
      let chunk = '';
      let chars = 0;
      for (let i = 0; i < page.length; i++) {
        if (count === maxItems) {
          yield chunk + statusLine({ complete: false, items: count, next: next ?? null });
          return;
        }
        count++;
        chunk += page[i]!;
        chars += page[i]!.length;
        // the text sent is let go at once
        page[i] = '';
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk !== '') yield chunk;
      if (!next) break;
      ctx = contextOf(ctx, next);
      // the reference gives links that do not advance (a full page of an `eq` list): read once
      const place = placeOf(ctx);
      if (visited.has(place)) break;
      visited.add(place);
      if (sized) ctx.query.set('limit', String(pageSizeFor(page.length, chars, pageBytes, maxPageSize, MIN_PAGE)));
      try {
        const target = ctx;
        const following = await read(() => route.handler(target));
        lines = linesOf(following, route.listing);
        next = following.next;
      } catch (err) {
        onError(err);
        yield failureLine(err);
        return;
      }
    }
    yield statusLine({ complete: true, items: count });
  }
  return generate();
}

/**
 * Sends the lines with the route's cache-control and `Vary: Accept` (the same URL also answers JSON).
 * The stream is pulled by the socket: the next chunk is made only when the socket took the last.
 */
export function sendNdjson(reply: FastifyReply, lines: AsyncIterable<string>, cacheControl: string, indexedThrough: string | undefined): FastifyReply {
  reply.header('content-type', NDJSON_TYPE).header('cache-control', cacheControl);
  if (indexedThrough !== undefined) reply.header('indexed-through', indexedThrough);
  reply.header('vary', 'Accept');
  return reply.send(Readable.from(lines, { objectMode: false, highWaterMark: 0 }));
}
