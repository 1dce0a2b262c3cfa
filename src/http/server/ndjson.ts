/**
 * A whole listing as NDJSON (an addition to the reference's interface, docs/compatibility.md): with
 * `Accept: application/x-ndjson`, a listing route answers every item of the filtered range, one JSON
 * object per line in the listing's order, instead of one page. The items are the route's own pages,
 * read one after the other by following each page's next link (so they equal the concatenation of
 * every page of the paged listing), at most `maxItems` of them. One page is in memory at a time and
 * the next is read only when the client has taken the previous one (backpressure); the first line
 * leaves as soon as the first page is read. The last line is a status object, never an item:
 *
 *   {"_status":{"complete":true,"items":N}}                 the range was read to its end
 *   {"_status":{"complete":false,"items":N,"next":"..."}}    stopped at the maximum; `next` reads on
 *   {"_status":{"messages":[{"message":"..."}]}}            a page failed (the usual error body)
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Encoded, toJson } from '../../format/json.ts';
import { DatabaseUnavailableError } from '../../db/db.ts';
import { parseQuery } from '../request/query.ts';
import { rawPath, rawSearch } from '../request/target.ts';
import { ClientError, errorBody, statusMessage } from '../request/errors.ts';
import type { Page, RequestContext, Route } from '../route.ts';

export const NDJSON_TYPE = 'application/x-ndjson';

/** True when the client asks for NDJSON: `application/x-ndjson` in Accept with a quality above 0. */
export function wantsNdjson(accept: string | undefined): boolean {
  if (accept === undefined || !accept.includes('ndjson')) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().split(';');
    if (type?.trim().toLowerCase() !== NDJSON_TYPE) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** The items of a listing page and its next link (listings answer `{"<key>": [...], "links": {"next": ...}}`). */
function itemsOf(page: Page, key: string): readonly unknown[] {
  const body = page.body instanceof Encoded ? page.body.value : page.body;
  const items = (body as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(items) ? items : [];
}

/** The request context of a next link: its path and query (links are relative, or absolute with includeHostInLink). */
function contextOf(base: RequestContext, link: string): RequestContext {
  const relative = base.linkBase !== '' && link.startsWith(base.linkBase) ? link.slice(base.linkBase.length) : link;
  return { ...base, path: rawPath(relative), query: parseQuery(rawSearch(relative)) };
}

/**
 * Lines leave in chunks of about this many characters: a write per line put one small TCP segment on
 * the wire per item, which cost the server most of a core and a Node client 10 times the time
 * (about 900 items/s where curl read 25,000).
 */
const CHUNK_CHARS = 64 * 1024;

const statusLine = (status: Record<string, unknown>) => `${toJson({ _status: status })}\n`;

/** The error body of a failure in mid-stream, as the route would have answered it. */
function failureLine(err: unknown): string {
  if (err instanceof ClientError) return `${errorBody(err.messages)}\n`;
  if (err instanceof DatabaseUnavailableError) return `${errorBody(['Service unavailable'])}\n`;
  return `${errorBody([statusMessage(500)])}\n`;
}

export interface NdjsonOptions {
  route: Route & { listing: string };
  /** The first page's request: its `limit` is the page size of the reads. */
  context: RequestContext;
  maxItems: number;
  /** Told of a failure in mid-stream (logged: the client sees only its error line). */
  onError: (err: unknown) => void;
  /** Runs the reads of the later pages (on the first page's server, with read replicas). */
  stay?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * The lines of the listing, read page by page. The first page is read before the stream starts, so
 * that a request the route rejects (400, 404) or a database that is down (503) is answered as usual.
 */
export async function ndjsonLines({ route, context, maxItems, onError, stay = (work) => work() }: NdjsonOptions): Promise<AsyncIterable<string>> {
  const first = await route.handler(context);
  async function* lines(): AsyncGenerator<string> {
    let page: Page = first;
    let ctx = context;
    let count = 0;
    const visited = new Set<string>();
    for (;;) {
      const items = itemsOf(page, route.listing);
      let chunk = '';
      for (let i = 0; i < items.length; i++) {
        if (count === maxItems) {
          yield chunk + statusLine({ complete: false, items: count, next: page.next ?? null });
          return;
        }
        count++;
        chunk += `${toJson(items[i])}\n`;
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk !== '') yield chunk;
      // the reference gives links that do not advance (a full page of an `eq` list): read once
      const next = page.next;
      if (!next || visited.has(next)) break;
      visited.add(next);
      ctx = contextOf(ctx, next);
      try {
        const target = ctx;
        page = await stay(() => route.handler(target));
      } catch (err) {
        onError(err);
        yield failureLine(err);
        return;
      }
    }
    yield statusLine({ complete: true, items: count });
  }
  return lines();
}

/** Sends the lines with the route's cache-control and `Vary: Accept` (the same URL also answers JSON). */
export function sendNdjson(reply: FastifyReply, lines: AsyncIterable<string>, cacheControl: string, indexedThrough: string | undefined): FastifyReply {
  reply.header('content-type', NDJSON_TYPE).header('cache-control', cacheControl);
  if (indexedThrough !== undefined) reply.header('indexed-through', indexedThrough);
  reply.header('vary', 'Accept');
  return reply.send(Readable.from(lines, { objectMode: false, highWaterMark: 64 * 1024 }));
}
