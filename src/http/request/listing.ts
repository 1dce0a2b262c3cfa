/**
 * The one way a listing pages: `limit` and `order` from the filters (last value wins), the rows
 * of one statement, and `links.next`, which the reference gives exactly when the page is full
 * (as many items as the limit) and otherwise sets to null.
 */
import type { Config } from '../../config/config.ts';
import { Encoded, toJson, utf8Join } from '../../format/json.ts';
import { type LastValue, nextLink } from './links.ts';
import { type Filter, lastValue } from './filters.ts';
import type { Order } from '../../db/sql.ts';
import { parseLimit, parseOrder } from './values.ts';
import type { ParsedQuery } from './query.ts';

export interface Paging {
  limit: number;
  order: Order;
}

/** The page size and direction a request asks for, with the route's default order. */
export function paging(filters: readonly Filter[], config: Config, defaultOrder: Order): Paging {
  const limit = lastValue(filters, 'limit');
  const order = lastValue(filters, 'order');
  return {
    limit: limit === undefined ? config.response.limit.default : parseLimit(limit, config.response.limit.max)!,
    order: order === undefined ? defaultOrder : parseOrder(order)!,
  };
}

/** What the next-page link is built from: the request as sent. */
export interface LinkRequest {
  linkBase: string;
  path: string;
  query: ParsedQuery;
}

/**
 * `links.next` of a page of `count` items: null unless the page is full; otherwise the request
 * with the last item's values as the new bounds (`last` gives them, in link order).
 */
export function nextPageLink(
  request: LinkRequest,
  { limit, order }: Paging,
  count: number,
  last: () => ReadonlyArray<readonly [string, LastValue]>,
): string | null {
  if (count !== limit) return null;
  return nextLink(request.linkBase, request.path, request.query, order, last());
}

/**
 * The listing body `{"<key>":[...],"links":{"next":...}}` and the link for the `Link` header. The body
 * encodes itself item by item (format/json.ts utf8Join), with `encodeItem` (an item's JSON text,
 * exactly as toJson writes it) or else toJson itself, so that a page of 100 items never becomes one
 * string.
 */
export function listingPage<T>(
  key: string,
  items: readonly T[],
  next: string | null,
  encodeItem?: (item: T) => string,
): { body: unknown; next: string | null } {
  const value = { [key]: items, links: { next } };
  const bytes = () => utf8Join(`{"${key}":[`, items.map(encodeItem ?? toJson), ',', `],"links":{"next":${next === null ? 'null' : JSON.stringify(next)}}}`);
  return { body: new Encoded(value, bytes), next };
}
