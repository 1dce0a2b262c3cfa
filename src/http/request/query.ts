import { type QsValue, parseQs } from './qsParse.ts';

/** One query-string value as parsed by qs: a string, an array of strings, or an object (bracket syntax). */
export type QueryValue = string | QueryValue[] | { [key: string]: QueryValue };

/** Query keys lower-cased, in order of first appearance; repeated keys become arrays. */
export type ParsedQuery = Map<string, QueryValue>;

const LOWER_CASED_VALUES = new Set(['order', 'result']);

const lowerString = (value: QueryValue): QueryValue => (typeof value === 'string' ? value.toLowerCase() : value);

/** A value of `order` or `result` lower-cased as the reference does it: a string, or each string of an array (not deeper). */
const lowerValue = (value: QueryValue): QueryValue => (Array.isArray(value) ? value.map(lowerString) : lowerString(value));

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
      // the arrays here are this parse's own: joined in place, as the reference pushes
      const joined = Array.isArray(existing) ? existing : [existing];
      if (Array.isArray(value)) for (const item of value) joined.push(item);
      else joined.push(value);
      query.set(key, joined);
    }
  }
  return query;
}

const isObject = (v: QueryValue): boolean => typeof v === 'object' && !Array.isArray(v);

/** A path segment as the reference's router decodes a parameter. */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
