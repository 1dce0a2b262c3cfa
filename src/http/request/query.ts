import { type QsValue, parseQs } from './qsParse.ts';

/** One query-string value as parsed by qs: a string, an array of strings, or an object (bracket syntax). */
export type QueryValue = string | QueryValue[] | { [key: string]: QueryValue };

/** Query keys lower-cased, in order of first appearance; repeated keys become arrays. */
export type ParsedQuery = Map<string, QueryValue>;

const LOWER_CASED_VALUES = new Set(['order', 'result']);

function lowerValue(value: QueryValue): QueryValue {
  if (typeof value === 'string') return value.toLowerCase();
  if (Array.isArray(value)) return value.map(lowerValue);
  return value;
}

/**
 * A value of qs's result as a query value: qs makes a string merged into an object a member `true`
 * (`a[x]=1&a=2`), which is kept as the text "true" (a route refuses an object value whatever its
 * members).
 */
function queryValue(value: QsValue): QueryValue {
  if (typeof value === 'string') return value;
  if (value === true) return 'true';
  if (Array.isArray(value)) return value.map(queryValue);
  const object: { [key: string]: QueryValue } = {};
  for (const [key, member] of Object.entries(value)) object[key] = queryValue(member);
  return object;
}

/**
 * Parses a raw query string the way the reference does: qs 6.14.0 (qsParse.ts), then keys
 * lower-cased (keys differing only in case are merged in the order qs gives them), `order` and
 * `result` values lower-cased.
 */
export function parseQuery(search: string): ParsedQuery {
  const query: ParsedQuery = new Map();
  for (const [rawKey, parsed] of Object.entries(parseQs(search))) {
    const key = rawKey.toLowerCase();
    const rawValue = queryValue(parsed);
    const value = LOWER_CASED_VALUES.has(key) ? lowerValue(rawValue) : rawValue;
    const existing = query.get(key);
    if (existing === undefined) {
      query.set(key, value);
    } else if (isObject(existing) || isObject(value)) {
      query.set(key, isObject(existing) ? existing : value);
    } else {
      query.set(key, [...(Array.isArray(existing) ? existing : [existing]), ...(Array.isArray(value) ? value : [value])]);
    }
  }
  return query;
}

const isObject = (v: QueryValue): boolean => typeof v === 'object' && !Array.isArray(v);

/** The part of a raw request URL after "?", or "". */
export function rawSearch(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q + 1);
}

/** The path of a raw request URL as the client sent it (still percent-encoded). */
export function rawPath(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** A path segment as the reference's router decodes a parameter. */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
