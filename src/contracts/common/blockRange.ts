/**
 * `block.number` as a range on the listings of results and logs (an addition to the reference's
 * interface, docs/compatibility.md): `eq`, `gt`, `gte`, `lt` and `lte`, decimal or 0x-hex, mapped
 * through the record files to the consensus range from the first block's start to the last block's
 * end. The request is then answered as the same request with that timestamp range instead (and
 * intersected with its own `timestamp` filters), so its answer, links included, is exactly that one.
 */
import { blockSpan } from '../../db/blocks.ts';
import type { Db } from '../../db/db.ts';
import { INT64, type Operator, type Range, narrow, emptyRange } from '../../db/range.ts';
import { formatTimestamp } from '../../format/timestamp.ts';
import { badRequest } from '../../http/request/errors.ts';
import { invalidParameter } from '../../http/request/messages.ts';
import type { ParsedQuery, QueryValue } from '../../http/request/query.ts';
import { parseTimestampNs } from '../../http/request/values.ts';
import type { RequestContext } from '../../http/route.ts';

const KEY = 'block.number';
/** A timestamp no record file holds (1 ns after the epoch), for a request whose block range holds none. */
const NO_TIME = '0.000000001';
const OPERATORS = new Set<Operator>(['eq', 'gt', 'gte', 'lt', 'lte']);
const NUMBER = /^(?:0x[0-9a-fA-F]{1,16}|\d{1,19})$/;

const valuesOf = (value: QueryValue | undefined): QueryValue[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The block range of the query's `block.number` filters; 400 for a value or operator it cannot be. */
export function blockFilters(query: ParsedQuery): Range<bigint> {
  let range = emptyRange<bigint>();
  for (const item of valuesOf(query.get(KEY))) {
    const text = typeof item === 'string' ? item : '';
    const colon = text.indexOf(':');
    const operator = (colon < 0 ? 'eq' : text.slice(0, colon)) as Operator;
    const number = colon < 0 ? text : text.slice(colon + 1);
    const value = NUMBER.test(number) ? BigInt(number) : undefined;
    if (!OPERATORS.has(operator) || value === undefined || value > INT64.max!) throw badRequest(invalidParameter(KEY));
    range = narrow(range, operator, value, INT64);
  }
  return range;
}

/** The query's block range as a consensus range (inclusive ns), or undefined when no block is in it. */
export async function consensusRange(db: Db, blocks: Range<bigint>): Promise<{ from?: bigint; to?: bigint } | undefined> {
  if (blocks.empty) return undefined;
  const eq = blocks.eq !== undefined ? [...new Set(blocks.eq)] : undefined;
  if (eq !== undefined && eq.length !== 1) return undefined;
  const lower = eq?.[0] ?? blocks.lower?.value;
  const upper = eq?.[0] ?? blocks.upper?.value;
  if (lower !== undefined && upper !== undefined && lower > upper) return undefined;
  const span = await blockSpan(db, lower, upper);
  const from = span.start === null ? undefined : BigInt(span.start);
  const to = span.end === null ? undefined : BigInt(span.end);
  if ((lower !== undefined && from === undefined) || (upper !== undefined && to === undefined)) return undefined;
  if (from !== undefined && to !== undefined && from > to) return undefined;
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

/**
 * The query with `block.number` replaced by its consensus range: its own lower (upper) timestamp
 * bound is kept where it is the tighter one, else replaced; `eq` timestamps are kept, and the query
 * selects nothing (undefined) when none is in the range. A bound whose value cannot be read is left
 * for the route to reject.
 */
export function withConsensusRange(query: ParsedQuery, range: { from?: bigint; to?: bigint }): ParsedQuery | undefined {
  const timestamps = valuesOf(query.get('timestamp'));
  const kept: QueryValue[] = [];
  // the tighter bound of each side: the request's own (kept as written) or the blocks' (added)
  let lower: { ns: bigint; item?: QueryValue } | undefined = range.from === undefined ? undefined : { ns: range.from };
  let upper: { ns: bigint; item?: QueryValue } | undefined = range.to === undefined ? undefined : { ns: range.to };
  let equal = false;
  for (const item of timestamps) {
    const text = typeof item === 'string' ? item : '';
    const colon = text.indexOf(':');
    const operator = colon < 0 ? 'eq' : text.slice(0, colon);
    const ns = parseTimestampNs(colon < 0 ? text : text.slice(colon + 1));
    if (ns === undefined || !['eq', 'gt', 'gte', 'lt', 'lte'].includes(operator)) {
      kept.push(item);
    } else if (operator === 'eq') {
      if ((range.from !== undefined && ns < range.from) || (range.to !== undefined && ns > range.to)) return undefined;
      equal = true;
      kept.push(item);
    } else if (operator === 'gt' || operator === 'gte') {
      const inclusive = operator === 'gt' ? ns + 1n : ns;
      if (lower === undefined || inclusive > lower.ns || (inclusive === lower.ns && lower.item === undefined)) lower = { ns: inclusive, item };
    } else {
      const inclusive = operator === 'lt' ? ns - 1n : ns;
      if (upper === undefined || inclusive < upper.ns || (inclusive === upper.ns && upper.item === undefined)) upper = { ns: inclusive, item };
    }
  }
  if (lower !== undefined && upper !== undefined && lower.ns > upper.ns) return undefined;
  const values = [...kept];
  if (!equal && lower !== undefined) values.push(lower.item ?? `gte:${formatTimestamp(lower.ns)}`);
  if (!equal && upper !== undefined) values.push(upper.item ?? `lte:${formatTimestamp(upper.ns)}`);
  // `timestamp` where the first of the two keys was, the other keys in their order (links repeat it)
  const next: ParsedQuery = new Map();
  for (const [key, value] of query) {
    if (key !== 'block.number' && key !== 'timestamp') next.set(key, value);
    else if (!next.has('timestamp') && values.length > 0) next.set('timestamp', values.length === 1 ? values[0]! : values);
  }
  return next;
}

/**
 * The request's query with its `block.number` range resolved (see above); `'empty'` when no block
 * (or no requested timestamp) is in it. `rangesOnly`: an `eq`-only `block.number` is left to the
 * route (the results listings answer it as the reference does).
 */
export async function resolveBlockRange(db: Db, query: ParsedQuery, rangesOnly = false): Promise<ParsedQuery | 'empty'> {
  if (!query.has(KEY)) return query;
  if (rangesOnly && valuesOf(query.get(KEY)).every((v) => typeof v === 'string' && /^(?:eq:)?[^:]*$/.test(v))) return query;
  const range = await consensusRange(db, blockFilters(query));
  const resolved = range && withConsensusRange(query, range);
  return resolved ?? 'empty';
}

/** The request as its route answers it (see withBlockRange). */
export interface BlockRangeRequest {
  request: RequestContext;
  /** No block (or no requested timestamp) is in the range: the route answers its empty listing once the request is valid. */
  empty: boolean;
}

/**
 * The request with `block.number` resolved when the filter additions are on (additions.filters; the
 * reference knows `block.number` on the results listings only, with `eq`). The route validates the
 * rest of the request as usual, and answers its empty listing where `empty`.
 */
export async function withBlockRange(request: RequestContext, rangesOnly = false): Promise<BlockRangeRequest> {
  if (!request.config.additions.filters || !request.query.has(KEY)) return { request, empty: false };
  const query = await resolveBlockRange(request.db, request.query, rangesOnly);
  if (query === 'empty') {
    // validated as the request without blocks; one that names no timestamp gets one (a topic search needs one)
    const rest = new Map(request.query);
    rest.delete(KEY);
    if (!rest.has('timestamp')) rest.set('timestamp', NO_TIME);
    return { request: { ...request, query: rest }, empty: true };
  }
  return { request: query === request.query ? request : { ...request, query }, empty: false };
}
